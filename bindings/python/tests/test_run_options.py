"""One typed set of a run's options (issue #45): ``knoblab.evaluate``'s
keyword arguments are the core's ``RunArgs`` fields, by name and default,
and each sets its own field and no other (as ``knoblab eval``'s flags are
checked in the CLI's tests)."""

import inspect
import json

import knoblab
from knoblab import _knoblab

# Arguments of evaluate that are not run options: the output, a shard's
# episodes, where Ray sends progress, the progress callback; and one name
# that Python cannot use (``lambda`` is a keyword).
NOT_OPTIONS = {"out", "select", "send_to", "progress"}
PYTHON_NAMES = {"lam": "lambda"}


def _defaults():
    return json.loads(_knoblab.run_options_json())


def _options():
    params = inspect.signature(knoblab.evaluate).parameters
    return {name: p for name, p in params.items() if name not in NOT_OPTIONS}


def test_evaluate_takes_every_run_option_by_name():
    names = sorted(PYTHON_NAMES.get(n, n) for n in _options())
    assert names == sorted(_defaults())


def test_evaluates_defaults_are_the_run_options_defaults():
    """A default of None stands for the core's (an empty list, no value,
    or, for ``library``, the library shipped in the package instead of
    ``data/library.json``); every other default is the core's."""
    defaults = _defaults()
    for name, p in _options().items():
        field = PYTHON_NAMES.get(name, name)
        if p.default is None:
            assert defaults[field] in ([], None, "data/library.json"), field
        else:
            made = json.loads(_knoblab.run_options_json(**{name: p.default}))
            assert made == defaults, name


def test_each_keyword_sets_its_own_option():
    given = {
        "bundles": ["a", "b"], "library": "lib.json", "devices": ["x"],
        "categories": ["Lamp"], "tasks": ["t1"], "repeats": 3, "agent": "oracle",
        "api": "anthropic", "base_url": "http://h/v1", "model": "m",
        "api_key_env": "K", "concurrency": 9, "lam": 2, "history": "full",
        "coords": "0-1", "perturb": "jpeg:50", "seed": 7, "temperature": 0.5,
        "max_tokens": 64, "timeout": 5.0, "retries": 0, "backoff": 2.5,
        "price_in": 1.5, "price_out": 2.0, "max_cost": 10.0, "render": "live",
        "cache": "model-cache",
    }
    defaults = _defaults()
    assert sorted(PYTHON_NAMES.get(n, n) for n in given) == sorted(defaults)
    for name, value in given.items():
        made = json.loads(_knoblab.run_options_json(**{name: value}))
        field = PYTHON_NAMES.get(name, name)
        for other in defaults:
            assert (made[other] == defaults[other]) == (other != field), (name, other)


def test_every_number_is_checked_against_its_domain():
    """Issue #47: each numeric option outside its domain is refused where
    the arguments are read, naming the option, the value and the domain
    (the core's check, as ``knoblab eval``'s flags and the page's form)."""
    import pytest

    cases = {
        "lam": (0, "lambda = 0", "a whole number from 1 to 100"),
        "repeats": (0, "repeats = 0", "from 1 to 1000"),
        "concurrency": (-1, "concurrency = -1", "from 1 to 256"),
        "temperature": (3.5, "temperature = 3.5", "from 0 to 2"),
        "max_tokens": (0, "max_tokens = 0", "from 1 to 1000000"),
        "timeout": (0.0, "timeout = 0", "above 0"),
        "retries": (21, "retries = 21", "from 0 to 20"),
        "backoff": (-1.0, "backoff = -1", "from 0 to 600"),
        "seed": (-5, "seed = -5", "from 0 to 18446744073709551615"),
        "price_in": (-1.0, "price_in = -1", "from 0 to 1000000"),
        "price_out": (float("nan"), "price_out = NaN", "from 0 to 1000000"),
        "max_cost": (0.0, "max_cost = 0", "above 0"),
    }
    for name, (value, said, domain) in cases.items():
        with pytest.raises(knoblab.OptionsError) as e:
            _knoblab.run_options_json(**{name: value})
        message = str(e.value)
        assert said in message and "outside its domain" in message, message
        assert domain in message, message
    # A fraction where a whole number is wanted is refused, not truncated.
    with pytest.raises(knoblab.OptionsError, match="lambda = 2.5 is outside its domain"):
        _knoblab.run_options_json(lam=2.5)
    # Whole floats and values at the edges are kept.
    made = json.loads(_knoblab.run_options_json(lam=100, retries=0, seed=2**64 - 1, timeout=3600))
    assert (made["lambda"], made["retries"], made["seed"], made["timeout"]) == (100, 0, 2**64 - 1, 3600.0)
