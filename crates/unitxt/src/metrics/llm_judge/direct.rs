//! `llm_judge_direct`: Unitxt's `LLMJudgeDirect`, direct assessment. For each instance the
//! judge's model is asked, in two stages, for an assessment of the prediction against a
//! criteria (thinking step by step), then, with that assessment in the conversation, for one of
//! the criteria's options; the option's value in the criteria's `option_map` is the score.
//! With `check_positional_bias` (the default) every instance is also judged with the options in
//! reverse order; with `generate_summaries` each assessment is also summarized.

use super::{artifact_json, message, put, shown, text_or_null, JudgeBase, JudgeConfig};
use crate::artifact::{Art, BuildContext};
use crate::error::{Error, Result};
use crate::inference::ModelClient;
use crate::criteria::{Criteria, CriteriaOption};
use crate::metrics::{Metric, MetricInput, MetricKind, Scores};
use crate::value::{Instance, Map, Value};

/// A built `llm_judge_direct`. Each instance's record is `{"main_score": .., "scores": ..}`
/// ([`MetricKind::BulkInstance`]): the main score is the criteria's name (lowercase, spaces as
/// `_`) when all instances share one named criteria, else `main_score` (`llm_as_judge`); the
/// scores are Unitxt's, each but the first prefixed with the main score's name: the score
/// (`option_map[selected option]`, 1 without an option map), `using_<evaluator>_<engine
/// label>` (the same), `positional_bias`, `selected_option`,
/// `positional_bias_selected_option`, `assessment`, `positional_bias_assessment`, `summary`,
/// `positional_bias_summary`, `prompts` (the chat messages of each stage),
/// `option_selection_completion`, `positional_bias_option_selection_completion` and `criteria`
/// (the criteria's JSON); those of stages not run are left out.
pub struct LlmJudgeDirect {
    base: JudgeBase,
}

impl LlmJudgeDirect {
    /// Builds the judge from its catalog fields (`config`, Unitxt's `LLMJudgeDirect` has no
    /// others) in `cx`: its engine and criteria. Errors: those of [`JudgeBase::build`]; a
    /// criteria without options (direct judges need `criteria_with_options`).
    pub fn build(config: JudgeConfig, cx: &BuildContext<'_>) -> Result<LlmJudgeDirect> {
        let base = JudgeBase::build("llm_judge_direct", config, cx)?;
        if let Some(c) = &base.criteria {
            with_options(c, &base)?;
        }
        Ok(LlmJudgeDirect { base })
    }
}

/// The options of a criteria, which must have some.
fn with_options<'a>(c: &'a Art<Criteria>, base: &JudgeBase) -> Result<&'a [CriteriaOption]> {
    c.options.as_deref().ok_or_else(|| {
        Error::invalid(format!("{}: the criteria `{}` must be a `criteria_with_options` (it has no options)", base.name(), c.name)).in_field("criteria")
    })
}

/// Unitxt's `display_options_instruction`: `Choose an option:` then one line per option.
fn options_instruction(options: &[&CriteriaOption]) -> String {
    let lines: Vec<String> = options
        .iter()
        .map(|o| if o.description.is_empty() { format!("- \"{}\"", o.name) } else { format!("- \"{}\" if {}", o.name, o.description) })
        .collect();
    format!("Choose an option:\n{}", lines.join("\n"))
}

/// The assessment prompt (Unitxt's `direct_template_dict["assessment"]`).
fn assessment_prompt(context: &str, response: &str, description: &str, options: &str) -> String {
    format!(
        "\nYou are presented with a response generated subject to a context.\nThe context includes information relevant to the nature or generation of the response.\nYou will assess the quality of the response subject to an evaluation criteria.\n###Context:\n{context}\n\n###Response:\n{response}\n\n###Evaluation criteria:\n{description}\n{options}\n\nBriefly assess the quality of the response subject to the evaluation criteria.\nFocus on the evaluation criteria during assessment, do not provide a general assessment.\nAssessment:\n\nLets think step by step "
    )
}

/// The summarization prompt (`direct_template_dict["summarization"]`).
fn summarization_prompt(assessment: &str) -> String {
    format!("Transform the following assessment into a concise summary that focuses on the key details, excluding references to the assessment itself.\n\nAssessment: {assessment}\nSummary:")
}

/// The option selection prompt (`direct_template_dict["answer"]`).
fn answer_prompt(description: &str, options: &str) -> String {
    format!(
        "Now based on the assessment, choose a criteria option. Only include the chosen option in the response. If the assessment already contains a selected option, choose that option. Don't contradict the assessment's selected option.\n\n###Evaluation criteria:\n{description}\n{options}\n\nThe selected criteria option is: "
    )
}

impl LlmJudgeDirect {
    /// The main score's name for these criteria (Unitxt's `__set_main_score`).
    fn main_for(&self, criteria: &[Art<Criteria>]) -> String {
        let first = criteria.first().map(|c| c.name.as_str()).unwrap_or("");
        if !first.is_empty() && criteria.iter().all(|c| c.name == first) {
            first.to_lowercase().split(' ').collect::<Vec<_>>().join("_")
        } else {
            self.main_score().to_string()
        }
    }
}

impl Metric for LlmJudgeDirect {
    fn main_score(&self) -> &str {
        self.base.config.main_score.as_deref().unwrap_or("llm_as_judge")
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
        for c in &criteria {
            with_options(c, &self.base)?;
        }
        let predictions = self.base.predictions(&tds, &criteria, inputs.iter().map(|i| i.prediction.clone()).collect())?;
        let contexts = self.base.contexts(&tds, &criteria)?;
        let main = self.main_for(&criteria);
        let bias = self.base.config.check_positional_bias;
        let total = if bias { 2 * n } else { n };
        // Evaluation k judges instance k % n, with the options reversed when k >= n.
        let options: Vec<Vec<&CriteriaOption>> = (0..total)
            .map(|k| {
                let opts = criteria[k % n].options.as_deref().unwrap_or_default();
                if k >= n {
                    opts.iter().rev().collect()
                } else {
                    opts.iter().collect()
                }
            })
            .collect();
        let instructions: Vec<String> = options.iter().map(|o| options_instruction(o)).collect();
        let instance_of = |k: usize| k % n;

        let assessment_prompts: Vec<Value> = (0..total)
            .map(|k| {
                let i = k % n;
                let content = assessment_prompt(&contexts[i], &shown(&predictions[i]), &criteria[i].description, &instructions[k]);
                Value::Array(vec![message("user", &content)])
            })
            .collect();
        let assessments = self.base.run_stage(client, "assessment", &assessment_prompts, instance_of)?;

        let (summary_prompts, summaries) = if self.base.config.generate_summaries {
            let prompts: Vec<Value> = assessments[..n]
                .iter()
                .map(|a| Value::Array(vec![message("user", &summarization_prompt(a.as_deref().unwrap_or("None")))]))
                .collect();
            let out = self.base.run_stage(client, "summarization", &prompts, instance_of)?;
            (prompts, out)
        } else {
            (Vec::new(), Vec::new())
        };

        let selection_prompts: Vec<Value> = (0..total)
            .map(|k| {
                let first = assessment_prompts[k].as_array().and_then(|a| a.first()).cloned().unwrap_or(Value::Null);
                let assistant = crate::json!({"role": "assistant", "content": text_or_null(&assessments[k])});
                let user = message("user", &answer_prompt(&criteria[k % n].description, &instructions[k]));
                Value::Array(vec![first, assistant, user])
            })
            .collect();
        let completions = self.base.run_stage(client, "option selection", &selection_prompts, instance_of)?;
        let selections: Vec<String> = completions
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let names: Vec<Value> = options[k].iter().map(|o| Value::from(o.name.as_str())).collect();
                let word = text_or_null(c);
                crate::processors::closest::closest_option(&word, &names)
                    .map(|v| v.as_str().unwrap_or_default().to_string())
                    .map_err(|e| e.context(format!("{}: matching the option selection answer of instance {} to the options", self.base.name(), k % n)))
            })
            .collect::<Result<_>>()?;

        let using = format!("using_{}_{}", self.base.evaluator_name.to_lowercase(), self.base.label);
        let mut records = Vec::with_capacity(n);
        for i in 0..n {
            let c = &criteria[i];
            let score = match &c.option_map {
                None => Value::from(1),
                Some(map) => match map.get(&selections[i]) {
                    Some(x) => crate::metrics::score_value(*x),
                    None => {
                        return Err(Error::invalid(format!(
                            "{}: instance {i}: the selected option {:?} is not in the `option_map` of criteria `{}`",
                            self.base.name(),
                            selections[i],
                            c.name
                        )))
                    }
                },
            };
            let j = n + i;
            let mut r = Map::new();
            put(&mut r, &main, score.clone());
            put(&mut r, &using, score);
            if bias {
                put(&mut r, "positional_bias", Value::Bool(selections[i] != selections[j]));
            }
            put(&mut r, "selected_option", Value::from(selections[i].as_str()));
            if bias {
                put(&mut r, "positional_bias_selected_option", Value::from(selections[j].as_str()));
            }
            put(&mut r, "assessment", text_or_null(&assessments[i]));
            if bias {
                put(&mut r, "positional_bias_assessment", text_or_null(&assessments[j]));
            }
            if self.base.config.generate_summaries {
                put(&mut r, "summary", text_or_null(&summaries[i]));
                if bias {
                    // Unitxt gives the same summary again (it summarizes the first runs only).
                    put(&mut r, "positional_bias_summary", text_or_null(&summaries[i]));
                }
            }
            if self.base.config.include_prompts_in_result {
                let mut p = Map::new();
                put(&mut p, "assessment", assessment_prompts[i].clone());
                if bias {
                    put(&mut p, "positional_bias_assessment", assessment_prompts[j].clone());
                }
                if self.base.config.generate_summaries {
                    put(&mut p, "summarization", summary_prompts[i].clone());
                }
                put(&mut p, "option_selection", selection_prompts[i].clone());
                if bias {
                    // Unitxt's key, misspelled as it is.
                    put(&mut p, "posional_bias_option_selection", selection_prompts[j].clone());
                }
                put(&mut r, "prompts", Value::Object(p));
            }
            put(&mut r, "option_selection_completion", text_or_null(&completions[i]));
            if bias {
                put(&mut r, "positional_bias_option_selection_completion", text_or_null(&completions[j]));
            }
            put(&mut r, "criteria", Value::from(artifact_json(&c.raw)));
            let scores: Map = r.into_iter().map(|(k, v)| if k == main { (k, v) } else { (format!("{main}_{k}").into(), v) }).collect();
            records.push(crate::json!({"main_score": main.as_str(), "scores": Value::Object(scores)}));
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
