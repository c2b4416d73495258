"""``knoblab.evaluate(..., cache=DIR)``: the model-call cache of ``knoblab
eval --cache`` from Python, against the mock model server, counting the
requests it receives: a first run sends one per turn, a rerun of the
finished sweep none, a changed prompt misses."""

from __future__ import annotations

import json
import knoblab

from conftest import KETTLE

OPTIONS = dict(
    tasks=["boil", "open_lid"],
    repeats=2,
    model="mock-vlm",
    history="full",
    concurrency=2,
    timeout=5.0,
    price_in=2.5,
    price_out=10.0,
)


def turns(result) -> int:
    return sum(len(r["turns"]) for r in result["records"])


def test_a_rerun_sends_nothing_and_a_changed_prompt_misses(mock_model, tmp_path):
    cache = tmp_path / "cache"
    start = len(mock_model.requests)
    first = knoblab.evaluate(tmp_path / "a.jsonl", KETTLE, base_url=mock_model.base_url, cache=cache, **OPTIONS)
    sent = len(mock_model.requests) - start
    assert first["left"] == 0 and sent == turns(first) > 0
    assert first["cache"] == {"hits": 0, "misses": sent, "stored": sent, "failed_writes": 0}
    assert all(r["cost"] > 0 for r in first["records"])

    # The same sweep into another file: nothing sent, every turn marked.
    again = knoblab.evaluate(tmp_path / "b.jsonl", KETTLE, base_url=mock_model.base_url, cache=cache, **OPTIONS)
    assert len(mock_model.requests) - start == sent, "a rerun sends no request"
    assert again["cache"]["hits"] == sent and again["cache"]["misses"] == 0
    for a, b in zip(first["records"], again["records"]):
        assert a["item"] == b["item"] and a["steps"] == b["steps"]
        assert all(t["cached"] for t in b["turns"]) and not any(t.get("cached") for t in a["turns"])
        assert b["cost"] == 0 and b["usage"] == a["usage"]
    # The file says so too: each turn's line carries `"cached": true`.
    line = json.loads((tmp_path / "b.jsonl").read_text().splitlines()[0])
    assert all(t["cached"] is True for t in line["turns"])

    # Another prompt (its coordinates' convention): every request is sent.
    before = len(mock_model.requests)
    other = knoblab.evaluate(
        tmp_path / "c.jsonl", KETTLE, base_url=mock_model.base_url, cache=cache, **dict(OPTIONS, coords="0-1")
    )
    assert len(mock_model.requests) - before == turns(other) == other["cache"]["misses"]
    assert other["cache"]["hits"] == 0


def test_agents_that_send_nothing_use_no_cache(tmp_path):
    result = knoblab.evaluate(tmp_path / "a.jsonl", KETTLE, agent="oracle", tasks="boil", cache=tmp_path / "cache")
    assert result["left"] == 0
    assert result["cache"] is None
    assert not (tmp_path / "cache").exists()
