import json, sys
sys.argv = ["x", "0"]
import importlib.util
spec = importlib.util.spec_from_file_location("g", "shared-grid2.py"); g = importlib.util.module_from_spec(spec); spec.loader.exec_module(g)
lo = open("shared-grid2-layouts.jsonl", "w"); rj = open("shared-grid2-rejects.jsonl", "w")
stats = {}
for l in open("shared-grid2-raw.jsonl"):
    r = json.loads(l)
    i = int(r["id"].split("-")[1])
    if r.get("crash"):
        kind, obj, shape, ebw, space = g.case(i)
        r = {"id": r["id"], "kind": kind, "shape": shape, "elem_bitwidth": ebw, "query": "layout",
             "mlir": r.get("mlir") or None, "error": "process aborted", "crashed": True}
    key = r["kind"] + (":ok" if "linear" in r else (":rej" if r.get("mlir") else ":nomlir"))
    stats[key] = stats.get(key, 0) + 1
    if "offset_bases must not be empty" in r.get("error", ""):
        r["triton_limitation"] = "1-element shared tensor: Gluon's SharedLinearLayout cannot hold an empty offset basis list"
    r["id"] = "sgrid2-%d" % i
    if "linear" in r:
        lo.write(json.dumps(r) + "\n")
    elif r.get("mlir"):
        rj.write(json.dumps(r) + "\n")
print(sorted(stats.items()))
