"""Python prints plans as the CLI does: ``Conversion.text`` (and ``str``)
is layout-view's plan printer, the text ``linlayout convert`` prints
between its ``class:`` line and its ``simulated:`` line."""
import json
import pathlib
import subprocess

import pytest

import linear_layouts as ll

ROOT = pathlib.Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "triton-oracle"


def _pairs():
    for line in (DATA / "sample-trivial-cvt.jsonl").read_text().splitlines():
        r = json.loads(line)
        yield r["shape"], r["src"]["linear"], r["dst"]["linear"]


def test_text_lists_every_shared_memory_access():
    seen = 0
    for shape, s, d in _pairs():
        c = ll.convert(ll.from_dict(s, shape=shape), ll.from_dict(d, shape=shape), "f16")
        assert str(c) == c.text and c.text.endswith("\n")
        assert c.text.startswith(("plan: ", "note: "))
        if "rounds" in c.plan:
            rounds = c.plan["rounds"]
            stores = sum(len(r["stores"]) for r in rounds)
            loads = sum(len(r["loads"]) for r in rounds)
            assert c.text.count("st.shared ") == stores
            assert c.text.count("ld.shared ") == loads
            assert c.text.count("    barrier\n") == len(rounds)
            seen += 1
    assert seen >= 3


def _cli():
    for p in ("target/release/linlayout", "target/debug/linlayout"):
        if (ROOT / p).exists():
            return str(ROOT / p)
    return None


@pytest.mark.skipif(_cli() is None, reason="linlayout is not built (cargo build -p linlayout)")
def test_text_is_what_the_cli_prints():
    for shape, s, d in list(_pairs())[:20]:
        out = subprocess.run(
            [_cli(), "convert", "--shape", "x".join(map(str, shape)), "--dtype", "f16",
             json.dumps(s), json.dumps(d)],
            capture_output=True, text=True, check=True,
        ).stdout
        lines = out.splitlines(keepends=True)
        body = "".join(lines[1:next(i for i, l in enumerate(lines) if l.startswith("simulated:"))])
        c = ll.convert(ll.from_dict(s, shape=shape), ll.from_dict(d, shape=shape), "f16")
        assert c.text == body
