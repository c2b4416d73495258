//! The model agent as a state machine with no transport: an observation
//! becomes a request ([`ModelAgent::prepare`]); a reply becomes the action
//! text the simulator steps with ([`ModelAgent::receive`]), and the turn's
//! record keeps the raw reply, the reasoning, the action and its parse
//! error. A request that fails for good ends the episode as `api_error`
//! ([`ModelAgent::fail`]). The browser awaits the HTTP call in between;
//! [`super::recorded::RecordedAgent`] answers from a file instead.
//!
//! The key is an argument of `prepare` and goes into the request's key
//! header only: the agent never stores it, so no record can hold it.

use super::error::VlmError;
use serde::{Deserialize, Serialize};

use crate::agents::{Agent, Move};
use knoblab_core::bundle::{Task, ViewImage};
use knoblab_core::sim::action::reasoning_text;
use knoblab_core::sim::{parse_action, Observation};

use super::coords::normalize_action;
use super::perturb::{self, EncodedImage};
use super::prompt::{self, Exchange};
use super::provider::HttpRequest;
use super::reply::{Reply, Usage};
use super::settings::AgentSettings;

/// What the picture sent at a turn was (its bytes are not kept in records).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageSent {
    /// The view it was a picture of.
    pub view: String,
    /// Its media type as sent (`image/png`, `image/jpeg`).
    pub media_type: String,
    /// Its width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// Its size as sent, in bytes.
    pub bytes: usize,
}

/// One turn of a model agent, as recorded next to the trajectory's step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The model's text as it came back (none when the request failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// The reasoning: the server's separate reasoning if it sent one, else
    /// the reply's text before its last `Action:`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The action text given to the simulator (coordinates on 0–1000).
    pub action: String,
    /// Why the simulator's parser could not read the action, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
    /// Why the request failed for good, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_error: Option<String>,
    /// Requests made for this turn (1 when no retry was needed).
    pub attempts: u32,
    /// From the first request to the reply, retries and waits included.
    pub elapsed_ms: u64,
    /// The tokens the reply reported.
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The picture sent with the turn, if any.
    pub image: Option<ImageSent>,
    /// The reply came from the run's model-call cache, not from the
    /// model: no request was sent and nothing was paid for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
}

/// A request ready to send, with what the page shows of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// The request (the key in its header).
    pub request: HttpRequest,
    /// The picture as sent (after any perturbation).
    pub image: EncodedImage,
}

/// The turn between `prepare` and `receive`.
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    user: String,
    image: ImageSent,
}

/// A model agent for one episode at a time.
#[derive(Debug, Clone)]
pub struct ModelAgent {
    settings: AgentSettings,
    system: String,
    /// Distinguishes the perturbation seeds of repeated episodes.
    episode_seed: u64,
    /// Which repeat of its task the episode is (0 for the first).
    repeat: u32,
    history: Vec<Exchange>,
    turns: Vec<Turn>,
    pending: Option<Pending>,
    /// The picture sent with the last request, until taken.
    shown: Option<EncodedImage>,
}

impl ModelAgent {
    /// A model agent with these settings; its system prompt follows their coordinate convention.
    pub fn new(settings: AgentSettings) -> ModelAgent {
        let system = prompt::system_prompt(settings.coords);
        ModelAgent {
            episode_seed: settings.seed,
            settings,
            system,
            repeat: 0,
            history: Vec::new(),
            turns: Vec::new(),
            pending: None,
            shown: None,
        }
    }

    /// The settings it runs with.
    pub fn settings(&self) -> &AgentSettings {
        &self.settings
    }

    /// The system prompt it sends.
    pub fn system_prompt(&self) -> &str {
        &self.system
    }

    /// A new episode. `repeat` (0 for the first) varies the perturbation
    /// seed between repeats of the same task.
    pub fn restart(&mut self, repeat: u32) {
        self.repeat = repeat;
        self.shown = None;
        self.episode_seed = self
            .settings
            .seed
            .wrapping_add(u64::from(repeat).wrapping_mul(1_000_003));
        self.history.clear();
        self.turns.clear();
        self.pending = None;
    }

    /// The turns so far.
    pub fn turns(&self) -> &[Turn] {
        &self.turns
    }

    /// The episode's tokens so far.
    pub fn usage(&self) -> Usage {
        let mut u = Usage::default();
        for t in &self.turns {
            u.add(t.usage);
        }
        u
    }

    /// The request for this observation, whose picture is `image`. The
    /// picture is perturbed if the settings say so (seeded by the run's
    /// seed, the repeat and the turn).
    pub fn prepare(
        &mut self,
        observation: &Observation,
        image: &ViewImage,
        key: &str,
    ) -> Result<Prepared, VlmError> {
        let encoded = match self.settings.perturbation {
            None => EncodedImage {
                media_type: image.media_type.clone(),
                bytes: image.bytes.to_vec(),
            },
            Some(p) => {
                let seed = self.episode_seed.wrapping_add(self.turns.len() as u64);
                perturb::apply(&image.bytes, p, seed)?
            }
        };
        let user = prompt::turn_text(observation, self.settings.coords);
        let messages =
            prompt::messages(&self.history, self.settings.history, &user, encoded.part());
        let mut request = self
            .settings
            .endpoint
            .request_without_key(&self.system, &messages);
        self.settings.endpoint.authorize(&mut request, key);
        self.pending = Some(Pending {
            user,
            image: ImageSent {
                view: observation.view.clone(),
                media_type: encoded.media_type.clone(),
                width: image.width,
                height: image.height,
                bytes: encoded.bytes.len(),
            },
        });
        Ok(Prepared {
            request,
            image: encoded,
        })
    }

    /// The model answered: the action text for the simulator, with the
    /// coordinate converted onto 0–1000. The turn is recorded.
    pub fn receive(&mut self, reply: Reply, attempts: u32, elapsed_ms: u64) -> String {
        let pending = self.pending.take();
        let (width, height) = pending
            .as_ref()
            .map_or((0, 0), |p| (p.image.width, p.image.height));
        let action = normalize_action(&reply.text, self.settings.coords, width, height);
        let parse_error = parse_action(&action).err().map(|e| e.to_string());
        let reasoning = reply
            .reasoning
            .clone()
            .or_else(|| reasoning_of(&reply.text));
        if let Some(p) = &pending {
            self.history.push(Exchange {
                user: p.user.clone(),
                assistant: reply.text.clone(),
            });
        }
        self.turns.push(Turn {
            reply: Some(reply.text),
            reasoning,
            action: action.clone(),
            parse_error,
            api_error: None,
            attempts,
            elapsed_ms,
            usage: reply.usage,
            image: pending.map(|p| p.image),
            cached: false,
        });
        action
    }

    /// The request failed for good (after retries): the turn is recorded
    /// with the error, and the episode ends as `api_error`.
    pub fn fail(&mut self, error: String, attempts: u32, elapsed_ms: u64) {
        let pending = self.pending.take();
        self.turns.push(Turn {
            api_error: Some(error),
            attempts,
            elapsed_ms,
            image: pending.map(|p| p.image),
            ..Turn::default()
        });
    }

    /// The error that ended the episode, if a request failed for good.
    pub fn api_error(&self) -> Option<&str> {
        self.turns.last().and_then(|t| t.api_error.as_deref())
    }
}

/// The model agent plays through [`Agent::next`]: each observation becomes
/// a request ([`Move::Ask`], without the key, which the driver adds), and
/// each reply the action. [`ModelAgent::restart`] chooses the repeat that
/// the next reset starts.
impl Agent for ModelAgent {
    fn name(&self) -> String {
        self.settings.endpoint.model.clone()
    }

    fn reset(&mut self, _task: &Task) {
        self.restart(self.repeat);
    }

    /// A model cannot act without an answer: played by [`Agent::next`].
    fn act(&mut self, _observation: &Observation) -> Option<String> {
        None
    }

    fn next(&mut self, observation: &Observation, image: Option<&ViewImage>) -> Move {
        let Some(image) = image else {
            let error = format!("no picture of view {} to send", observation.view);
            ModelAgent::fail(self, error, 0, 0);
            return Move::Fail;
        };
        match self.prepare(observation, image, "") {
            Ok(prepared) => {
                self.shown = Some(prepared.image);
                Move::Ask(prepared.request)
            }
            Err(e) => {
                ModelAgent::fail(self, e.to_string(), 0, 0);
                Move::Fail
            }
        }
    }

    fn answer(&mut self, reply: Reply, attempts: u32, elapsed_ms: u64) -> Move {
        Move::Act(self.receive(reply, attempts, elapsed_ms))
    }

    fn fail(&mut self, error: String, attempts: u32, elapsed_ms: u64) {
        ModelAgent::fail(self, error, attempts, elapsed_ms);
    }

    fn turns(&self) -> &[Turn] {
        ModelAgent::turns(self)
    }

    fn take_shown(&mut self) -> Option<EncodedImage> {
        self.shown.take()
    }
}

/// The text before the reply's last `Action:` marker (without a leading
/// `Thought:`), or with no marker the text before its last line, which the
/// parser read as the action; none when nothing is left.
fn reasoning_of(reply: &str) -> Option<String> {
    let before = reasoning_text(reply).trim();
    let before = before
        .strip_prefix("Thought:")
        .or_else(|| before.strip_prefix("thought:"))
        .unwrap_or(before)
        .trim();
    (!before.is_empty()).then(|| before.to_string())
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // tests parse what they check directly (#47)
mod tests {
    use super::*;
    use crate::vlm::coords::CoordConvention;
    use knoblab_core::sim::ImageRef;

    fn png() -> ViewImage {
        let mut bytes = std::io::Cursor::new(Vec::new());
        image::DynamicImage::ImageRgb8(image::RgbImage::new(200, 100))
            .write_to(&mut bytes, image::ImageFormat::Png)
            .unwrap();
        ViewImage {
            width: 200,
            height: 100,
            media_type: "image/png".into(),
            bytes: bytes.into_inner().into(),
        }
    }

    fn observation(feedback: Option<&str>) -> Observation {
        Observation {
            view: "front".into(),
            image: ImageRef {
                view: "front".into(),
                width: 200,
                height: 100,
            },
            views: vec!["front".into()],
            feedback: feedback.map(str::to_string),
            instruction: Some("Boil.".into()),
        }
    }

    fn reply(text: &str) -> Reply {
        Reply {
            text: text.into(),
            reasoning: None,
            usage: Usage {
                input_tokens: 100,
                output_tokens: 10,
            },
        }
    }

    #[test]
    fn a_reply_becomes_an_action_and_a_record() {
        let mut agent = ModelAgent::new(AgentSettings {
            coords: CoordConvention::Pixels,
            ..AgentSettings::default()
        });
        agent
            .prepare(&observation(None), &png(), "sk-secret")
            .unwrap();
        let action = agent.receive(
            reply("Thought: the button is centre left.\nAction: Press(coord=[50, 50], params=[0])"),
            1,
            12,
        );
        assert_eq!(action, "Press(coord=[250, 500], params=[0])");
        let turn = &agent.turns()[0];
        assert_eq!(
            turn.reasoning.as_deref(),
            Some("the button is centre left.")
        );
        assert_eq!(turn.parse_error, None);
        assert_eq!(turn.image.as_ref().map(|i| i.width), Some(200));
        assert_eq!(agent.usage().input_tokens, 100);
    }

    #[test]
    fn parse_errors_are_kept_and_the_text_still_goes_to_the_simulator() {
        let mut agent = ModelAgent::new(AgentSettings::default());
        agent.prepare(&observation(None), &png(), "").unwrap();
        let action = agent.receive(
            reply("I would click it.\nAction: Click(coord=[1, 2])"),
            1,
            0,
        );
        assert_eq!(action, "Click(coord=[1, 2])");
        let err = agent.turns()[0].parse_error.clone().unwrap_or_default();
        assert!(err.contains("not an action"), "{err}");
    }

    #[test]
    fn the_history_window_limits_what_is_sent() {
        let mut agent = ModelAgent::new(AgentSettings {
            history: crate::vlm::prompt::HistoryWindow::Last(1),
            ..AgentSettings::default()
        });
        for i in 0..3 {
            let p = agent
                .prepare(&observation(Some(&format!("feedback {i}"))), &png(), "")
                .unwrap();
            let body: serde_json::Value = serde_json::from_str(&p.request.body).unwrap();
            let sent = body["messages"].as_array().map_or(0, Vec::len);
            // System, then at most one past exchange (2 messages), then the turn.
            assert_eq!(sent, 1 + 2 * i.min(1) + 1, "turn {i}");
            agent.receive(reply(&format!("Action: Timed_wait() {i}")), 1, 0);
        }
    }

    #[test]
    fn the_key_is_in_the_request_header_and_nowhere_else() {
        let mut agent = ModelAgent::new(AgentSettings::default());
        let p = agent
            .prepare(&observation(None), &png(), "sk-secret-123")
            .unwrap();
        assert!(!p.request.body.contains("sk-secret-123"));
        assert!(p
            .request
            .headers
            .iter()
            .any(|(_, v)| v.contains("sk-secret-123")));
        agent.receive(reply("Action: Timed_wait()"), 1, 0);
        let record = serde_json::to_string(agent.turns()).unwrap();
        assert!(!record.contains("sk-secret"));
        assert!(!format!("{agent:?}").contains("sk-secret"));
    }

    #[test]
    fn a_failure_ends_with_an_api_error() {
        let mut agent = ModelAgent::new(AgentSettings::default());
        agent.prepare(&observation(None), &png(), "").unwrap();
        agent.fail("HTTP 500: boom".into(), 4, 9_000);
        assert_eq!(agent.api_error(), Some("HTTP 500: boom"));
        assert_eq!(agent.turns()[0].attempts, 4);
        agent.restart(1);
        assert!(agent.turns().is_empty());
    }

    #[test]
    fn reasoning_is_the_text_before_the_action() {
        assert_eq!(reasoning_of("Action: Timed_wait()"), None);
        assert_eq!(
            reasoning_of("It is busy.\nAction: Timed_wait()").as_deref(),
            Some("It is busy.")
        );
        assert_eq!(reasoning_of("no action here"), None);
        assert_eq!(
            reasoning_of("Looks off.\nPress(coord=[1, 2])").as_deref(),
            Some("Looks off.")
        );
    }
}
