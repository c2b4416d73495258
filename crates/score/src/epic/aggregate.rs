//! Aggregation into the official summary (§12): "All aggregates are plain
//! sample means. Nothing is weighted by task." Keys and their order are the
//! official ones; sums run left to right like Python 3.11's `sum()`.

use serde_json::{json, Map, Value};

use super::count::Counts;
use super::scorer::SampleResult;
use super::taxonomy::{CATEGORIES, GROUPS, LEAVES};

/// One summary bucket.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Bucket {
    /// The number of samples in the bucket.
    pub total_processed: usize,
    /// How many of them had no valid response ("No Valid Response").
    pub num_invalid_response: usize,
    /// The sample mean; 0.0 for an empty bucket.
    pub mean_score: f64,
}

/// A bucket being summed: the scores are added in sample order, as
/// Python 3.11's `sum()` adds them left to right, so the mean is the
/// official one to the last bit.
#[derive(Debug, Clone, Copy, Default)]
struct Sum {
    sum: f64,
    n: usize,
    invalid: usize,
}

impl Sum {
    fn add(&mut self, s: &SampleResult) {
        self.sum += s.score;
        self.n += 1;
        self.invalid += usize::from(s.invalid_response);
    }

    fn bucket(&self) -> Bucket {
        Bucket {
            total_processed: self.n,
            num_invalid_response: self.invalid,
            mean_score: if self.n == 0 {
                0.0
            } else {
                self.sum / self.n as f64
            },
        }
    }
}

/// The summary: overall, by category, by type, by group, in official order;
/// only keys with samples appear.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// All samples.
    pub overall: Bucket,
    /// `(category, bucket)` per task category with samples.
    pub by_category: Vec<(&'static str, Bucket)>,
    /// `(type key, bucket)` per task type with samples.
    pub by_type: Vec<(&'static str, Bucket)>,
    /// `(abbreviation, key, bucket)`.
    pub by_group: Vec<(&'static str, &'static str, Bucket)>,
}

impl Summary {
    /// Aggregates the samples into the official summary, in one pass over
    /// them: each sample is added to its buckets in sample order.
    pub fn new(samples: &[SampleResult]) -> Summary {
        let mut overall = Sum::default();
        let mut categories = [Sum::default(); CATEGORIES.len()];
        let mut types = [Sum::default(); LEAVES.len()];
        let mut groups = [Sum::default(); GROUPS.len()];
        for s in samples {
            overall.add(s);
            for (c, sum) in CATEGORIES.iter().zip(categories.iter_mut()) {
                if s.task_category == *c {
                    sum.add(s);
                }
            }
            let Some(leaf) = s.leaf else {
                continue;
            };
            for (l, sum) in LEAVES.iter().zip(types.iter_mut()) {
                if leaf.type_key == l.type_key {
                    sum.add(s);
                }
            }
            for ((_, key), sum) in GROUPS.iter().zip(groups.iter_mut()) {
                if leaf.group_key == *key {
                    sum.add(s);
                }
            }
        }
        let by_category = CATEGORIES
            .iter()
            .zip(categories)
            .filter(|(_, sum)| sum.n > 0)
            .map(|(c, sum)| (*c, sum.bucket()))
            .collect();
        let by_type = LEAVES
            .iter()
            .zip(types)
            .filter(|(_, sum)| sum.n > 0)
            .map(|(l, sum)| (l.type_key, sum.bucket()))
            .collect();
        let by_group = GROUPS
            .iter()
            .zip(groups)
            .filter(|(_, sum)| sum.n > 0)
            .map(|((abbr, key), sum)| (*abbr, *key, sum.bucket()))
            .collect();
        Summary {
            overall: overall.bucket(),
            by_category,
            by_type,
            by_group,
        }
    }

    /// The group bucket by abbreviation (BA, SRA, ...).
    pub fn group(&self, abbr: &str) -> Option<Bucket> {
        self.by_group.iter().find(|g| g.0 == abbr).map(|g| g.2)
    }

    /// The unweighted mean of the subcategory means present (an extra, not
    /// the paper's "Average", which is `overall`).
    pub fn unweighted_group_mean(&self) -> Option<f64> {
        let n = self.by_group.len();
        (n > 0).then(|| self.by_group.iter().map(|g| g.2.mean_score).sum::<f64>() / n as f64)
    }

    /// The official `summary` object.
    pub fn to_official_json(&self) -> Value {
        let b = |b: &Bucket, avg: &str| {
            let mut m = Map::new();
            m.insert("total_expected".into(), json!(b.total_processed));
            m.insert("total_processed".into(), json!(b.total_processed));
            m.insert("num_invalid_response".into(), json!(b.num_invalid_response));
            m.insert(avg.into(), json!(b.mean_score));
            Value::Object(m)
        };
        let section = |items: Vec<(&str, &Bucket)>| {
            Value::Object(
                items
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), b(v, "mean_score")))
                    .collect(),
            )
        };
        let mut m = Map::new();
        m.insert("overall".into(), b(&self.overall, "average_score"));
        m.insert(
            "by_category".into(),
            section(self.by_category.iter().map(|(k, v)| (*k, v)).collect()),
        );
        m.insert(
            "by_type".into(),
            section(self.by_type.iter().map(|(k, v)| (*k, v)).collect()),
        );
        m.insert(
            "by_group".into(),
            section(self.by_group.iter().map(|(_, k, v)| (*k, v)).collect()),
        );
        Value::Object(m)
    }
}

/// One row of the count-accuracy breakdown (the paper's figure 4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CountRow {
    /// The GT target count; the last row gathers `≥ 5`.
    pub gt_count: i64,
    /// The number of samples with this GT count.
    pub samples: usize,
    /// The share of samples whose predicted count equals the GT count.
    pub exact_accuracy: f64,
    /// The mean official count score.
    pub mean_count_score: f64,
}

/// Count accuracy by GT target count over the samples that score a count
/// (TL, VM, CR) and whose GT and predicted counts are both known. Counts of
/// 5 and more share the last row. KnobLab's own breakdown for the page, not
/// an official figure.
pub fn count_accuracy_by_target_count(samples: &[SampleResult]) -> Vec<CountRow> {
    let mut rows: Vec<(i64, usize, usize, f64)> = (0..=5).map(|c| (c, 0, 0, 0.0)).collect();
    for s in samples {
        let Some(Counts {
            gt: Some(g),
            pred: Some(p),
        }) = s.counts
        else {
            continue;
        };
        let score = s.score_details.get("count_score").unwrap_or(0.0);
        let row = &mut rows[g.clamp(0, 5) as usize];
        row.1 += 1;
        row.2 += usize::from(p == g);
        row.3 += score;
    }
    rows.into_iter()
        .filter(|r| r.1 > 0)
        .map(|(gt_count, n, exact, sum)| CountRow {
            gt_count,
            samples: n,
            exact_accuracy: exact as f64 / n as f64,
            mean_count_score: sum / n as f64,
        })
        .collect()
}
