//! The domain of every number a run is given (issue #47): λ, repeats,
//! episodes in flight, the request's temperature, tokens, timeout, retries
//! and backoff, the seed, the prices and the cost cap. One table, and one
//! function, [`check`], that every face calls where it reads the option:
//! `knoblab eval` and `knoblab run` on their flags, `knoblab.evaluate` on
//! its keyword arguments (through the application layer's `RunArgs`), and
//! the page's Agent form on what was typed. A value outside its domain is
//! refused with the option, the value and the domain
//! (`λ = 0 is outside its domain: a whole number from 1 to 100 (…)`); a
//! fraction where a whole number is wanted is refused, never truncated.

use super::InputError;

/// What kind of number an option takes, and its bounds (both included
/// unless `min_open`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Domain {
    /// The option's name, as the run options (`RunArgs`) and the flags
    /// (`--max-tokens`) call it.
    pub option: &'static str,
    /// A whole number (else any real number in the bounds).
    pub whole: bool,
    /// The least value.
    pub min: f64,
    /// Whether `min` itself is excluded (a timeout of 0 s is no timeout).
    pub min_open: bool,
    /// The greatest value.
    pub max: f64,
    /// The domain, and why, for people.
    pub expected: &'static str,
}

/// Every numeric option of a run, with its domain.
pub const DOMAINS: [Domain; 12] = [
    Domain {
        option: "lambda",
        whole: true,
        min: 1.0,
        min_open: false,
        max: super::limits::MAX_LAMBDA as f64,
        expected: "a whole number from 1 to 100 (the budget is λ times the optimal steps: 0 ends every episode before its first step; input::limits::MAX_LAMBDA)",
    },
    Domain {
        option: "repeats",
        whole: true,
        min: 1.0,
        min_open: false,
        max: 1000.0,
        expected: "a whole number from 1 to 1000 (episodes of each task; 0 plays nothing)",
    },
    Domain {
        option: "concurrency",
        whole: true,
        min: 1.0,
        min_open: false,
        max: 256.0,
        expected: "a whole number from 1 to 256 (episodes in flight; 0 would never start one)",
    },
    Domain {
        option: "temperature",
        whole: false,
        min: 0.0,
        min_open: false,
        max: 2.0,
        expected: "a number from 0 to 2 (the range the model APIs accept)",
    },
    Domain {
        option: "max_tokens",
        whole: true,
        min: 1.0,
        min_open: false,
        max: 1_000_000.0,
        expected: "a whole number from 1 to 1000000 (tokens a reply may take; no model answers in more)",
    },
    Domain {
        option: "timeout",
        whole: false,
        min: 0.0,
        min_open: true,
        max: 3600.0,
        expected: "a number of seconds above 0 and at most 3600 (a request that takes an hour has failed)",
    },
    Domain {
        option: "retries",
        whole: true,
        min: 0.0,
        min_open: false,
        max: 20.0,
        expected: "a whole number from 0 to 20 (each wait up to a minute, 20 retries already wait up to 20 minutes for one request)",
    },
    Domain {
        option: "backoff",
        whole: false,
        min: 0.0,
        min_open: false,
        max: 600.0,
        expected: "a number of seconds from 0 to 600 (the first wait before a retry)",
    },
    Domain {
        option: "seed",
        whole: true,
        min: 0.0,
        min_open: false,
        max: u64::MAX as f64,
        expected: "a whole number from 0 to 18446744073709551615",
    },
    Domain {
        option: "price_in",
        whole: false,
        min: 0.0,
        min_open: false,
        max: 1_000_000.0,
        expected: "dollars per million input tokens, from 0 to 1000000",
    },
    Domain {
        option: "price_out",
        whole: false,
        min: 0.0,
        min_open: false,
        max: 1_000_000.0,
        expected: "dollars per million output tokens, from 0 to 1000000",
    },
    Domain {
        option: "max_cost",
        whole: false,
        min: 0.0,
        min_open: true,
        max: 1_000_000_000.0,
        expected: "dollars above 0 (a run stops starting episodes once its estimated cost reaches it)",
    },
];

/// A number as a face received it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Given<'a> {
    /// A whole number (a Python `int`, a typed flag); negative allowed here
    /// so that the domain, not a type conversion, refuses it.
    Whole(i128),
    /// A real number (a Python `float`).
    Real(f64),
    /// Text typed in a form or on a command line.
    Text(&'a str),
}

/// A value within its domain.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// For a whole-number option.
    Whole(u64),
    /// For a real option.
    Real(f64),
}

impl Value {
    /// The value as a whole number (a real is rounded; [`check`] gives a
    /// whole number for a whole-number option).
    pub fn whole(self) -> u64 {
        match self {
            Value::Whole(n) => n,
            Value::Real(x) => x.round() as u64,
        }
    }

    /// The value as a real number.
    pub fn real(self) -> f64 {
        match self {
            Value::Whole(n) => n as f64,
            Value::Real(x) => x,
        }
    }
}

/// The λ given to a run, or an error naming its domain (a whole number
/// from 1 to [`super::limits::MAX_LAMBDA`]: the budget is λ times the
/// optimal steps, so λ = 0 would end every episode before its first step).
pub fn check_lambda(lambda: u32) -> Result<u32, InputError> {
    whole("lambda", Given::Whole(lambda.into()))
}

/// The domain of `option` (a name of [`DOMAINS`]).
pub fn domain(option: &str) -> Option<&'static Domain> {
    DOMAINS.iter().find(|d| d.option == option)
}

/// Checks one option's value against its domain: the one check every
/// face calls. An unknown option name is refused too (a face asking for a
/// domain that does not exist is a bug, said plainly).
///
/// ```
/// use knoblab_core::input::options::{check, Given, Value};
/// assert_eq!(check("lambda", Given::Text("3")).unwrap(), Value::Whole(3));
/// let err = check("lambda", Given::Whole(0)).unwrap_err().to_string();
/// assert!(err.starts_with("lambda = 0 is outside its domain: a whole number from 1 to 100"), "{err}");
/// assert!(check("retries", Given::Text("2.5")).is_err());
/// ```
pub fn check(option: &str, given: Given<'_>) -> Result<Value, InputError> {
    let Some(d) = domain(option) else {
        return Err(InputError::OutOfDomain {
            what: "option",
            found: super::text::escape_controls(option).into_owned(),
            expected: "one of the run options (lambda, repeats, concurrency, temperature, max_tokens, timeout, retries, backoff, seed, price_in, price_out, max_cost)",
        });
    };
    let refuse = |found: String| InputError::OutOfDomain {
        what: d.option,
        found,
        expected: d.expected,
    };
    let inside =
        |x: f64| x.is_finite() && (if d.min_open { x > d.min } else { x >= d.min }) && x <= d.max;
    match given {
        Given::Whole(n) => {
            if !d.whole {
                return if inside(n as f64) {
                    Ok(Value::Real(n as f64))
                } else {
                    Err(refuse(n.to_string()))
                };
            }
            match u64::try_from(n) {
                Ok(v) if inside(v as f64) => Ok(Value::Whole(v)),
                _ => Err(refuse(n.to_string())),
            }
        }
        Given::Real(x) => {
            if d.whole {
                if x.fract() != 0.0 || !x.is_finite() || x.abs() > 9.0e15 {
                    return Err(refuse(x.to_string()));
                }
                return check(option, Given::Whole(x as i128));
            }
            if inside(x) {
                Ok(Value::Real(x))
            } else {
                Err(refuse(x.to_string()))
            }
        }
        Given::Text(t) => {
            let t = t.trim();
            let shown = || super::text::escape_controls(t).into_owned();
            if d.whole {
                match (t.parse::<i128>(), t.parse::<f64>()) {
                    (Ok(n), _) => check(option, Given::Whole(n)).map_err(|_| refuse(shown())),
                    // A number, but not a whole one: refused by its domain.
                    (_, Ok(x)) => check(option, Given::Real(x)).map_err(|_| refuse(shown())),
                    _ => Err(refuse(format!("\"{}\"", shown()))),
                }
            } else {
                match t.parse::<f64>() {
                    Ok(x) => check(option, Given::Real(x)).map_err(|_| refuse(shown())),
                    Err(_) => Err(refuse(format!("\"{}\"", shown()))),
                }
            }
        }
    }
}

/// [`check`] for a whole-number option, the value as `T` (`u32`, `usize`).
pub fn whole<T: TryFrom<u64>>(option: &str, given: Given<'_>) -> Result<T, InputError> {
    let v = check(option, given)?.whole();
    T::try_from(v).map_err(|_| InputError::OutOfDomain {
        what: "option",
        found: format!("{option} = {v}"),
        expected: "a value the run can hold",
    })
}

/// [`check`] for a real option.
pub fn real(option: &str, given: Given<'_>) -> Result<f64, InputError> {
    Ok(check(option, given)?.real())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_names_itself_the_value_and_its_domain() {
        for (option, bad) in [
            ("lambda", Given::Whole(0)),
            ("lambda", Given::Whole(101)),
            ("lambda", Given::Text("2.5")),
            ("repeats", Given::Whole(0)),
            ("concurrency", Given::Text("0")),
            ("concurrency", Given::Whole(257)),
            ("temperature", Given::Real(-0.1)),
            ("temperature", Given::Real(f64::NAN)),
            ("max_tokens", Given::Whole(0)),
            ("timeout", Given::Real(0.0)),
            ("timeout", Given::Text("inf")),
            ("retries", Given::Whole(-1)),
            ("retries", Given::Whole(21)),
            ("backoff", Given::Real(-1.0)),
            ("seed", Given::Whole(-1)),
            ("seed", Given::Text("12345678901234567890123")),
            ("price_in", Given::Real(-2.0)),
            ("price_out", Given::Text("cheap")),
            ("max_cost", Given::Real(0.0)),
        ] {
            let err = check(option, bad).unwrap_err().to_string();
            let d = domain(option).unwrap();
            assert!(err.starts_with(&format!("{option} = ")), "{err}");
            assert!(err.contains("is outside its domain"), "{err}");
            assert!(err.ends_with(d.expected), "{err}");
        }
    }

    #[test]
    fn values_inside_their_domain_are_kept_exactly() {
        assert_eq!(
            check("lambda", Given::Whole(100)).unwrap(),
            Value::Whole(100)
        );
        assert_eq!(check("lambda", Given::Real(3.0)).unwrap(), Value::Whole(3));
        assert_eq!(
            check("seed", Given::Text("18446744073709551615")).unwrap(),
            Value::Whole(u64::MAX)
        );
        assert_eq!(
            check("timeout", Given::Text(" 2.5 ")).unwrap(),
            Value::Real(2.5)
        );
        assert_eq!(
            check("temperature", Given::Whole(1)).unwrap(),
            Value::Real(1.0)
        );
        assert_eq!(whole::<u32>("retries", Given::Whole(0)).unwrap(), 0);
        assert!(check("lamda", Given::Whole(1)).is_err());
        // Every whole-number domain fits the field that holds it.
        for d in DOMAINS.iter().filter(|d| d.whole) {
            assert_eq!(d.min.fract(), 0.0, "{}", d.option);
        }
    }
}
