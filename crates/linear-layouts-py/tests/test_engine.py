"""`assign_layouts`: the layout engine on real kernels (the engine oracle's
sample, committed under crates/layout-engine/tests/data), checked against
Triton's own pre-pipeline TTGIR of the same records."""

import gzip
import json
import pathlib
import re

import pytest

import linear_layouts as ll

REPO = pathlib.Path(__file__).resolve().parents[3]
RECORDS = [
    json.loads(line)
    for line in gzip.open(
        REPO / "crates" / "layout-engine" / "tests" / "data" / "sample.jsonl.gz", "rt", encoding="utf-8"
    )
    if line.strip()
]


def by_family(prefix):
    return next(r for r in RECORDS if r["id"].startswith(prefix))


def run(rec):
    return ll.assign_layouts(rec["ttir"], target=rec["target"], num_warps=rec["options"]["num_warps"])


@pytest.mark.parametrize("rec", RECORDS[::4], ids=lambda r: r["id"].split(".")[0])
def test_every_value_has_a_parseable_layout_and_the_checker_agrees(rec):
    out = run(rec)
    assert out["violations"] == []
    aliases = dict(out["aliases"])
    assert out["values"], rec["id"]
    for name, alias in out["values"]:
        assert alias in aliases, (name, alias)
    for c in out["conversions"]:
        assert c["src"] in aliases and c["dst"] in aliases
        assert c["weighted"] == pytest.approx(c["cycles"] * out["loop_weight"] ** c["depth"])
    assert out["cost"] == pytest.approx(sum(c["weighted"] for c in out["conversions"]))


def test_dot_layout_equals_tritons_as_a_linear_map():
    rec = by_family("matmul_splitk")
    out = run(rec)
    aliases = dict(out["aliases"])
    dot_line = next(l for l in out["program"].splitlines() if "tt.dot" in l)
    result = re.search(r"// (%\w+): (#\w+)", dot_line)
    ours = aliases[result.group(2)]
    theirs = next(
        o["results"][0]["enc"] for o in rec["facts_pre_pipeline"]["layout_ops"] if o["op"] == "tt.dot"
    )
    shape = next(o["results"][0]["shape"] for o in rec["facts_pre_pipeline"]["layout_ops"] if o["op"] == "tt.dot")
    assert ll.from_mlir(ours, shape) == ll.from_mlir(theirs, shape)


def test_cost_no_higher_than_tritons_conversions_on_flash_attention():
    # Triton keeps 3 conversions here (one trivial mma -> dot_op); the
    # algebra drops the trivial one.
    rec = by_family("flash_attn_fwd")
    out = run(rec)
    assert len(out["conversions"]) <= rec["facts_pre_pipeline"]["n_convert_layout"] - 1


def test_objective_conversions_trades_the_total_for_fewer_conversion_cycles():
    # The online softmax keeps its reduced axis inside a warp under the
    # total objective (a conversion in, no shared-memory round) and not
    # when only conversions count; Triton keeps none here.
    rec = by_family("softmax_online")
    total = run(rec)
    conv = ll.assign_layouts(rec["ttir"], target=rec["target"], num_warps=rec["options"]["num_warps"],
                             objective="conversions")
    assert conv["violations"] == [] and total["violations"] == []
    assert conv["cost"] < total["cost"]
    assert conv["cost"] == 0
    assert (conv["objective"], total["objective"]) == ("conversions", "total")
    with pytest.raises(ll.LayoutError, match="cheapest"):
        ll.assign_layouts(rec["ttir"], target="sm90", num_warps=4, objective="cheapest")


def test_errors_name_the_problem():
    rec = by_family("vector_add")
    with pytest.raises(ll.LayoutError, match="tt.frobnicate"):
        ll.assign_layouts(rec["ttir"].replace("tt.load", "tt.frobnicate", 1), target="sm90", num_warps=4)
    with pytest.raises(ll.LayoutError, match="sm70"):
        ll.assign_layouts(rec["ttir"], target="sm70", num_warps=4)
    with pytest.raises(ll.LayoutError, match="num_warps"):
        ll.assign_layouts(rec["ttir"], target="sm90", num_warps=3)
    with pytest.raises(ll.LayoutError):
        ll.assign_layouts("module {", target="sm90", num_warps=4)


def test_ttgir_carries_every_layout_and_one_convert_per_conversion():
    rec = by_family("flash_attn_fwd")
    out = run(rec)
    text = out["ttgir"]
    assert text.startswith("#")
    assert '"ttg.num-warps" = 4 : i32' in text
    # Data-moving converts (an attribute-only `%acN` respells a value for a use).
    moving = [l for l in text.splitlines() if "= ttg.convert_layout " in l and not l.strip().startswith("%ac")]
    assert len(moving) == len(out["conversions"]) + out["trivial_dropped"]
    # The conversion list stays beside it, with the same aliases the text defines.
    for c in out["conversions"]:
        assert f"{c['dst']} = " in text or "#ttg." in c["dst"]
