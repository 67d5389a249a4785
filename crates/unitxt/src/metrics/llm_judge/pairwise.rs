//! `llm_judge_pairwise`: Unitxt's `LLMJudgePairwise`. Each instance's prediction holds the
//! responses of several systems (a list: systems `1`, `2`, ...; or a dict of system name →
//! response); every pair of them is a contest: the judge's model assesses which response is
//! better for the criteria, then, with that assessment in the conversation, names the winner.
//! With `check_positional_bias` (the default) each contest is run again with the two responses
//! swapped; with `generate_summaries` each assessment is also summarized. A system's score is
//! its win rate over its contests.

use super::{artifact_json, message, put, shown, text_or_null, JudgeBase, JudgeConfig};
use crate::artifact::BuildContext;
use crate::error::{Error, Result};
use crate::inference::ModelClient;
use crate::criteria::Criteria;
use crate::metrics::{Metric, MetricInput, MetricKind, Scores};
use crate::value::{Instance, Map, Value};

/// A built `llm_judge_pairwise`. Each instance's record is `{"main_score": "<first
/// system>_winrate", "mean": ["score", "<system>_winrate", ...], "scores": ..}`
/// ([`MetricKind::BulkInstance`]); the scores are Unitxt's, per system `<system>_`:
/// `summaries`, `contest_results`, `selections`, `compared_to`, `assessments`,
/// `positional_bias_assessments`, `option_selection_outputs`, `positional_bias`,
/// `positional_bias_selection`, `prompts`, `winrate`, `llm_as_judge` (the win rate),
/// `ranking` (1 is best) and `response_name`; then `criteria` (the criteria's JSON). Lists of
/// stages not run are left out.
pub struct LlmJudgePairwise {
    base: JudgeBase,
}

impl LlmJudgePairwise {
    /// Builds the judge from its catalog fields (`config`; Unitxt's `LLMJudgePairwise` has no
    /// others) in `cx`: its engine and criteria. Errors: those of [`JudgeBase::build`].
    pub fn build(config: JudgeConfig, cx: &BuildContext<'_>) -> Result<LlmJudgePairwise> {
        Ok(LlmJudgePairwise { base: JudgeBase::build("llm_judge_pairwise", config, cx)? })
    }
}

/// The assessment prompt (Unitxt's `pairwise_template_dict["assessment"]`).
fn assessment_prompt(context: &str, criteria: &Criteria, (a, b): (&str, &str), (ra, rb): (&str, &str)) -> String {
    format!(
        "You are provided a pair of responses (Response {a} and Response {b}) generated subject to a context.\nYou will choose the better quality response subject to the evaluation criteria.\n\nThis is the context:\n{context}\n\nThis is the evaluation criteria:\n{}\n{}\n\nResponse {a}:\n{ra}\nResponse {b}:\n{rb}\n\nKeeping the evaluation criteria in mind, briefly assess which response is better.\nFocus on the evaluation criteria during assessment, do not provide a general assessment.\nAssessment:\n\nLets think step by step ",
        criteria.name, criteria.description
    )
}

/// The summarization prompt (`pairwise_template_dict["summarization"]`).
fn summarization_prompt(assessment: &str) -> String {
    format!("Transform the following assessment into a concise summary that focuses on the key details, excluding references to the assessment itself. The summary must clearly state which response won.\n\nAssessment: {assessment}\nSummary:")
}

/// The winner selection prompt (`pairwise_template_dict["answer"]`).
fn answer_prompt(a: &str, b: &str) -> String {
    let instruction: String = [a, b].iter().map(|o| format!("Choose \"{o}\" if Response {o} is better quality.\n")).collect();
    format!("Now considering the evaluation criteria, which response is better quality? Only include the chosen response.\n{instruction}\nAnswer: ")
}

/// A prediction as system name → response (Unitxt's `__parse_prediction_to_dict`).
fn systems(prediction: &Value, base: &JudgeBase, i: usize) -> Result<Vec<(String, Value)>> {
    match prediction {
        Value::Array(a) => Ok(a.iter().enumerate().map(|(k, v)| ((k + 1).to_string(), v.clone())).collect()),
        Value::Object(o) => Ok(o.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()),
        other => Err(Error::invalid(format!(
            "{}: instance {i}: a prediction must be a list or a dict of the systems' responses, got {}",
            base.name(),
            crate::artifact::short(other)
        ))),
    }
}

/// Unitxt's `rank_indexes`: rank 0 for the highest values, ties sharing the rank of the first
/// of them in a stable sort by descending value.
pub(crate) fn rank_indexes(xs: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| xs[b].partial_cmp(&xs[a]).unwrap_or(std::cmp::Ordering::Equal));
    let mut ranks = vec![0; xs.len()];
    let mut current = 0;
    for (pos, &i) in idx.iter().enumerate() {
        if pos > 0 && xs[i] != xs[idx[pos - 1]] {
            current = pos;
        }
        ranks[i] = current;
    }
    ranks
}

/// One contest to run: the instance and its two systems (positions in its list), in the
/// order shown.
struct Contest {
    instance: usize,
    first: usize,
    second: usize,
}

impl Metric for LlmJudgePairwise {
    fn main_score(&self) -> &str {
        self.base.config.main_score.as_deref().unwrap_or("1_winrate")
    }
    fn map(&self, _prediction: &Value, _references: &[Value], _task_data: &Instance) -> Result<Value> {
        Err(Error::invalid(format!("{} judges all instances of a stream at once (map_batch), not one by one", self.base.name())))
    }
    fn map_batch(&self, inputs: &[MetricInput<'_>], client: Option<&dyn ModelClient>) -> Result<Vec<Value>> {
        let client = client.ok_or_else(|| self.base.no_client())?;
        let n = inputs.len();
        if n == 0 {
            return Ok(Vec::new());
        }
        let tds: Vec<&Instance> = inputs.iter().map(|i| i.task_data).collect();
        let criteria = self.base.criteria_list(&tds)?;
        let contexts = self.base.contexts(&tds, &criteria)?;
        let given = self.base.predictions(&tds, &criteria, inputs.iter().map(|i| i.prediction.clone()).collect())?;
        let preds: Vec<Vec<(String, Value)>> = given.iter().enumerate().map(|(i, p)| systems(p, &self.base, i)).collect::<Result<_>>()?;
        let names0: Vec<&str> = preds[0].iter().map(|(k, _)| k.as_str()).collect();
        let Some(first_name) = names0.first() else {
            return Err(Error::invalid(format!("{}: instance 0 has no responses to compare", self.base.name())));
        };
        let main = format!("{first_name}_winrate");
        let mut sorted0: Vec<&str> = names0.clone();
        sorted0.sort();
        sorted0.dedup();
        let bias = self.base.config.check_positional_bias;

        // The contests of each instance: every pair (itertools.combinations), then the same
        // pairs swapped for positional bias.
        let mut contests: Vec<Contest> = Vec::new();
        let mut start: Vec<usize> = Vec::with_capacity(n);
        let mut count: Vec<usize> = Vec::with_capacity(n);
        for (i, p) in preds.iter().enumerate() {
            let mut names: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
            names.sort();
            names.dedup();
            if names != sorted0 {
                return Err(Error::invalid(format!(
                    "{}: the systems of instance {i} ({names:?}) differ from those of instance 0 ({sorted0:?}); give every instance the same systems",
                    self.base.name()
                )));
            }
            let pairs: Vec<(usize, usize)> = (0..p.len()).flat_map(|a| (a + 1..p.len()).map(move |b| (a, b))).collect();
            start.push(contests.len());
            count.push(pairs.len());
            contests.extend(pairs.iter().map(|&(a, b)| Contest { instance: i, first: a, second: b }));
            if bias {
                contests.extend(pairs.iter().map(|&(a, b)| Contest { instance: i, first: b, second: a }));
            }
        }
        let owner = |k: usize| contests[k].instance;

        let assessment_prompts: Vec<Value> = contests
            .iter()
            .map(|c| {
                let p = &preds[c.instance];
                let (a, b) = (&p[c.first], &p[c.second]);
                let content = assessment_prompt(&contexts[c.instance], &criteria[c.instance], (&a.0, &b.0), (&shown(&a.1), &shown(&b.1)));
                Value::Array(vec![message("user", &content)])
            })
            .collect();
        let assessments = self.base.run_stage(client, "assessment", &assessment_prompts, owner)?;

        // Summaries of each instance's first runs, instance by instance.
        let summarized: Vec<usize> = (0..n).flat_map(|i| start[i]..start[i] + count[i]).collect();
        let (summary_prompts, summaries) = if self.base.config.generate_summaries {
            let prompts: Vec<Value> = summarized
                .iter()
                .map(|&k| Value::Array(vec![message("user", &summarization_prompt(assessments[k].as_deref().unwrap_or("None")))]))
                .collect();
            let out = self.base.run_stage(client, "summarization", &prompts, |s| owner(summarized[s]))?;
            (prompts, out)
        } else {
            (Vec::new(), Vec::new())
        };

        let selection_prompts: Vec<Value> = contests
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let p = &preds[c.instance];
                let first = assessment_prompts[k].as_array().and_then(|a| a.first()).cloned().unwrap_or(Value::Null);
                let assistant = crate::json!({"role": "assistant", "content": text_or_null(&assessments[k])});
                Value::Array(vec![first, assistant, message("user", &answer_prompt(&p[c.first].0, &p[c.second].0))])
            })
            .collect();
        let completions = self.base.run_stage(client, "winner selection", &selection_prompts, owner)?;
        let selections: Vec<String> = completions
            .iter()
            .zip(&contests)
            .map(|(out, c)| {
                let p = &preds[c.instance];
                let options = [Value::from(format!("Response {}", p[c.first].0)), Value::from(format!("Response {}", p[c.second].0))];
                let chosen = crate::processors::closest::closest_option(&text_or_null(out), &options)
                    .map_err(|e| e.context(format!("{}: matching the winner selection answer of instance {} to the responses", self.base.name(), c.instance)))?;
                Ok(chosen.as_str().unwrap_or_default().rsplit(' ').next().unwrap_or_default().to_string())
            })
            .collect::<Result<_>>()?;

        let mut means = vec!["score".to_string()];
        means.extend(names0.iter().map(|k| format!("{k}_winrate")));
        let mut records = Vec::with_capacity(n);
        for i in 0..n {
            let p = &preds[i];
            let names: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
            // Per system, Unitxt's lists in their order.
            const LISTS: [&str; 9] = [
                "summaries",
                "contest_results",
                "selections",
                "compared_to",
                "assessments",
                "positional_bias_assessments",
                "option_selection_outputs",
                "positional_bias",
                "positional_bias_selection",
            ];
            const PROMPTS: [&str; 5] = ["assessment", "positional_bias_assessment", "option_selection", "positional_bias_option_selection", "summary"];
            let mut lists: Vec<Vec<Vec<Value>>> = vec![vec![Vec::new(); LISTS.len()]; names.len()];
            let mut prompts: Vec<Vec<Vec<Value>>> = vec![vec![Vec::new(); PROMPTS.len()]; names.len()];
            let include = self.base.config.include_prompts_in_result;
            let summaries_on = self.base.config.generate_summaries;
            let summary_start = summarized.iter().position(|&k| k == start[i]).unwrap_or(0);
            for c in 0..count[i] {
                let k = start[i] + c;
                let kb = k + count[i];
                let (s1, s2) = (contests[k].first, contests[k].second);
                let winner = &selections[k];
                for (s, other) in [(s1, s2), (s2, s1)] {
                    let l = &mut lists[s];
                    l[1].push(Value::Bool(winner == names[s]));
                    l[4].push(text_or_null(&assessments[k]));
                    l[2].push(Value::from(winner.as_str()));
                    l[3].push(Value::from(names[other]));
                    let pr = &mut prompts[s];
                    if include {
                        pr[0].push(assessment_prompts[k].clone());
                    }
                    if summaries_on {
                        if include {
                            pr[4].push(summary_prompts[summary_start + c].clone());
                        }
                        l[0].push(text_or_null(&summaries[summary_start + c]));
                    }
                    if include {
                        pr[2].push(selection_prompts[k].clone());
                    }
                    if bias {
                        l[5].push(text_or_null(&assessments[kb]));
                        l[7].push(Value::Bool(selections[k] != selections[kb]));
                        if include {
                            pr[1].push(assessment_prompts[kb].clone());
                            pr[3].push(selection_prompts[kb].clone());
                        }
                    }
                    l[6].push(text_or_null(&completions[k]));
                    if bias {
                        l[8].push(text_or_null(&completions[kb]));
                    }
                }
            }
            let winrates: Vec<f64> = lists
                .iter()
                .map(|l| {
                    let wins = l[1].iter().filter(|x| matches!(x, Value::Bool(true))).count();
                    wins as f64 / l[1].len() as f64
                })
                .collect();
            let ranking = rank_indexes(&winrates);
            let mut scores = Map::new();
            for (s, name) in names.iter().enumerate() {
                for (j, key) in LISTS.iter().enumerate() {
                    put(&mut scores, &format!("{name}_{key}"), Value::Array(std::mem::take(&mut lists[s][j])));
                }
                let mut pm = Map::new();
                for (j, key) in PROMPTS.iter().enumerate() {
                    put(&mut pm, key, Value::Array(std::mem::take(&mut prompts[s][j])));
                }
                put(&mut scores, &format!("{name}_prompts"), Value::Object(pm));
                let w = crate::metrics::score_value(winrates[s]);
                put(&mut scores, &format!("{name}_winrate"), w.clone());
                put(&mut scores, &format!("{name}_llm_as_judge"), w);
                put(&mut scores, &format!("{name}_ranking"), Value::from(ranking[s] + 1));
                put(&mut scores, &format!("{name}_response_name"), Value::from(*name));
            }
            put(&mut scores, "criteria", Value::from(artifact_json(&criteria[i].raw)));
            records.push(crate::json!({"main_score": main.as_str(), "mean": means.clone(), "scores": Value::Object(scores)}));
        }
        Ok(records)
    }
    fn instance_scores(&self, record: &Value) -> Result<Scores> {
        JudgeBase::record_scores(record)
    }
    fn reduce(&self, records: &[&Value]) -> Result<Scores> {
        JudgeBase::reduce_records(self.main_score(), records)
    }
    fn kind(&self) -> MetricKind {
        MetricKind::BulkInstance
    }
    fn n_resamples(&self) -> Option<usize> {
        self.base.n_resamples()
    }
    fn unavailable(&self) -> Option<crate::error::Unavailable> {
        Some(self.base.unavailable())
    }
}
