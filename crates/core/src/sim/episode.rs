//! One episode, in Gymnasium's words (`specs/devices.md` sections 2 and 3):
//! [`Episode::reset`] and [`Episode::step`]. Goals, budgets and recording
//! are layered here over the dynamics of [`super::rules`].

use std::collections::HashMap;

use thiserror::Error;

use crate::bundle::{logic_hash, Bundle, Task, ViewImage};

use super::action::parse_action;
use super::device::{Device, Node};
use super::observation::{ImageRef, Info, Observation, Step};
use super::outcome::Outcome;
use super::planner::{ideal_path, plan, PlanError};
use super::render::{RenderMode, Renderer};
use super::rules::{apply, switchable_views};
use super::trajectory::{Settings, StepRecord, Trajectory};

/// Misuse of an episode (an agent's mistakes are outcomes, never errors),
/// or a task the bundle cannot run.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError {
    /// `step` before any `reset`.
    #[error("the episode has not been reset: call reset with a task first")]
    NotReset,
    /// `step` after the episode ended.
    #[error("the episode is over ({why}): reset it before stepping again")]
    Finished {
        /// Why it ended (every goal reached, a budget spent).
        why: &'static str,
    },
    /// No task of that id in the bundle.
    #[error("no task \"{task}\" in the bundle (tasks: {known})")]
    UnknownTask {
        /// The id asked for.
        task: String,
        /// The bundle's task ids.
        known: String,
    },
    /// The task starts in a state the SSM does not have.
    #[error("task \"{task}\" starts in state \"{state}\", which the device does not have")]
    UnknownState {
        /// The task.
        task: String,
        /// The state it names.
        state: String,
    },
    /// The task starts in a view the bundle does not have.
    #[error("task \"{task}\" starts in view \"{view}\", which the bundle does not have")]
    UnknownView {
        /// The task.
        task: String,
        /// The view it names.
        view: String,
    },
    /// A goal names a state the SSM does not have.
    #[error("goal {goal} of task \"{task}\" is state \"{state}\", which the device does not have")]
    UnknownGoalState {
        /// The task.
        task: String,
        /// The goal's position in the task, from 0.
        goal: usize,
        /// The state it names.
        state: String,
    },
    /// The task has no goals.
    #[error("task \"{task}\" has no goals")]
    NoGoals {
        /// The task.
        task: String,
    },
    /// The live picture could not be made (a damaged live layer).
    #[error("the picture could not be drawn: {0}")]
    Render(String),
    /// A goal cannot be reached along the ideal path.
    #[error("task \"{task}\": {source}")]
    Unreachable {
        /// The task.
        task: String,
        /// Which goal, and from where.
        source: PlanError,
    },
}

/// The mutable part of an episode after a reset.
#[derive(Debug, Clone)]
struct Run {
    goals: Vec<usize>,
    instructions: Vec<String>,
    lambda: u32,
    node: Node,
    goal_index: usize,
    steps: u32,
    budget_global_total: u32,
    budget_local: u32,
    c_opt: Option<u32>,
    terminated: bool,
    truncated: bool,
    feedback: Option<String>,
    outcome: Option<Outcome>,
    trajectory: Trajectory,
}

/// One episode on a bundle: borrows it, owns only what changes.
#[derive(Debug, Clone)]
pub struct Episode<'b> {
    device: Device<'b>,
    logic_hash: String,
    views_locked: Vec<String>,
    views_unlocked: Vec<String>,
    run: Option<Run>,
    c_opt_cache: HashMap<(Node, usize), Option<u32>>,
}

impl<'b> Episode<'b> {
    /// Prepares episodes on a bundle (compiles it once; `reset` starts one).
    pub fn new(bundle: &'b Bundle) -> Episode<'b> {
        let device = Device::new(bundle);
        let names = |unlocked| {
            switchable_views(&device, unlocked)
                .into_iter()
                .map(str::to_string)
                .collect()
        };
        Episode {
            views_locked: names(false),
            views_unlocked: names(true),
            logic_hash: logic_hash(bundle),
            device,
            run: None,
            c_opt_cache: HashMap::new(),
        }
    }

    /// The compiled bundle.
    pub fn device(&self) -> &Device<'b> {
        &self.device
    }

    /// The bundle's logic hash, as trajectories carry it.
    pub fn logic_hash(&self) -> &str {
        &self.logic_hash
    }

    /// Starts the task of this id.
    pub fn reset(
        &mut self,
        task_id: &str,
        settings: Settings,
    ) -> Result<(Observation, Info), SimError> {
        let bundle = self.device.bundle;
        let Some(task) = bundle.tasks.iter().find(|t| t.id == task_id) else {
            let known: Vec<&str> = bundle.tasks.iter().map(|t| t.id.as_str()).collect();
            return Err(SimError::UnknownTask {
                task: task_id.to_string(),
                known: known.join(", "),
            });
        };
        self.reset_task(task, settings)
    }

    /// Starts a task (one of the bundle's, or any other on this device).
    pub fn reset_task(
        &mut self,
        task: &Task,
        settings: Settings,
    ) -> Result<(Observation, Info), SimError> {
        let bundle = self.device.bundle;
        let (state_name, view_name) = self.device.task_start_names(task);
        let state = self
            .device
            .state(state_name)
            .filter(|&s| self.device.states[s].state.is_some())
            .ok_or_else(|| SimError::UnknownState {
                task: task.id.clone(),
                state: state_name.to_string(),
            })?;
        let view = self
            .device
            .view(view_name)
            .ok_or_else(|| SimError::UnknownView {
                task: task.id.clone(),
                view: view_name.to_string(),
            })?;
        if task.goals.is_empty() {
            return Err(SimError::NoGoals {
                task: task.id.clone(),
            });
        }
        let mut goals = Vec::with_capacity(task.goals.len());
        for (i, g) in task.goals.iter().enumerate() {
            let s = self
                .device
                .state(&g.state)
                .ok_or_else(|| SimError::UnknownGoalState {
                    task: task.id.clone(),
                    goal: i,
                    state: g.state.clone(),
                })?;
            goals.push(s);
        }
        let unlocked = self.device.dashboard.is_some_and(|d| d.view == view);
        let start = Node {
            state,
            view,
            unlocked,
        };
        let plans =
            ideal_path(&self.device, start, &goals).map_err(|source| SimError::Unreachable {
                task: task.id.clone(),
                source,
            })?;
        for (i, p) in plans.iter().enumerate() {
            let from = if i == 0 { start } else { plans[i - 1].end };
            self.c_opt_cache.insert((from, goals[i]), Some(p.c_opt()));
        }
        let lambda = settings.lambda;
        let ideal_c_opt: Vec<u32> = plans.iter().map(|p| p.c_opt()).collect();
        let total: u32 = ideal_c_opt.iter().sum();
        let budget_global_total = lambda.saturating_mul(total);
        let first = ideal_c_opt.first().copied().unwrap_or(0);
        let budget_local = lambda.saturating_mul(first);

        // In order of first visit; a set of the indices seen keeps it
        // linear in the path (a search of the list was quadratic).
        let mut ideal_states: Vec<String> = vec![state_name.to_string()];
        let mut seen: std::collections::HashSet<usize> = std::collections::HashSet::from([state]);
        for p in &plans {
            for &s in &p.entered {
                if seen.insert(s) {
                    ideal_states.push(self.device.states[s].name.to_string());
                }
            }
        }
        let trajectory = Trajectory {
            bundle_id: bundle.manifest.id.clone(),
            logic_hash: self.logic_hash.clone(),
            task_id: task.id.clone(),
            settings,
            steps: Vec::new(),
            goals_reached: 0,
            goals_total: goals.len(),
            terminated: false,
            truncated: budget_local == 0 || budget_global_total == 0,
            budget_global_total,
            ideal_c_opt,
            ideal_states,
            first_goal_c_opt: first,
        };
        self.run = Some(Run {
            instructions: task.goals.iter().map(|g| g.instruction.clone()).collect(),
            goals,
            lambda,
            node: start,
            goal_index: 0,
            steps: 0,
            budget_global_total,
            budget_local,
            c_opt: Some(first),
            terminated: false,
            truncated: trajectory.truncated,
            feedback: None,
            outcome: None,
            trajectory,
        });
        let run = self.run.as_ref().ok_or(SimError::NotReset)?;
        Ok((self.observation_of(run), self.info_of(run)))
    }

    /// Plays one action (the text an agent wrote): the rules of section 2,
    /// then goals, then budgets (one step each, valid or not; on reaching a
    /// goal the local budget becomes max(B_local, λ · C_opt of the next goal
    /// from where the device now is)). The episode is terminated when every
    /// goal is reached, truncated when the steps reach B_global or B_local
    /// reaches 0. **Decision (spec silent):** reaching the last goal on the
    /// step that exhausts a budget terminates; it does not also truncate.
    ///
    /// Errors only on misuse: before `reset`, or after the episode ended.
    pub fn step(&mut self, action_text: &str) -> Result<Step, SimError> {
        let mut run = self.run.take().ok_or(SimError::NotReset)?;
        if run.terminated || run.truncated {
            let why = if run.terminated {
                "every goal was reached"
            } else {
                "a budget ran out"
            };
            self.run = Some(run);
            return Err(SimError::Finished { why });
        }
        let parsed = parse_action(action_text);
        let before = run.node;
        let effect = apply(&self.device, before, &parsed);
        let goal_before = run.goal_index;

        // Goals. A goal is reached when the device is in its state after a
        // step, "**Decision:** or passes through it during that step's
        // immediate chain". Each state entered during the step, in order,
        // may reach the current goal (so one step may reach several goals,
        // in order; out of order counts for nothing); with none entered,
        // the state the device stays in.
        let mut reached = Vec::new();
        let seq: &[usize] = if effect.entered.is_empty() {
            std::slice::from_ref(&effect.to.state)
        } else {
            &effect.entered
        };
        for &s in seq {
            if run.goals.get(run.goal_index) == Some(&s) {
                reached.push(run.goal_index);
                run.goal_index += 1;
            }
        }

        // Budgets.
        run.steps += 1;
        run.budget_local = run.budget_local.saturating_sub(1);
        let mut next_goal_c_opt = None;
        if !reached.is_empty() {
            if let Some(&goal) = run.goals.get(run.goal_index) {
                let c = self.c_opt(effect.to, goal);
                run.c_opt = c;
                next_goal_c_opt = c;
                run.budget_local = run
                    .budget_local
                    .max(run.lambda.saturating_mul(c.unwrap_or(0)));
            }
        }
        run.node = effect.to;
        run.terminated = run.goal_index >= run.goals.len();
        run.truncated =
            !run.terminated && (run.steps >= run.budget_global_total || run.budget_local == 0);

        let name = |s: usize| self.device.states[s].name.to_string();
        let view_name = |v: usize| self.device.views[v].name.to_string();
        let passed = match effect.entered.split_last() {
            Some((_, rest)) => rest.iter().map(|&s| name(s)).collect(),
            None => Vec::new(),
        };
        run.trajectory.steps.push(StepRecord {
            action: action_text.to_string(),
            parsed: parsed.ok(),
            outcome: effect.outcome,
            state_before: name(before.state),
            state_after: name(effect.to.state),
            passed,
            view_before: view_name(before.view),
            view_after: view_name(effect.to.view),
            feedback: effect.feedback.clone(),
            goal_index: goal_before,
            budget_global: run.budget_global_total.saturating_sub(run.steps),
            budget_local: run.budget_local,
            component: effect
                .component
                .map(|c| self.device.components[c].to_string()),
            unlocked_before: before.unlocked,
            unlocked_after: effect.to.unlocked,
            goals_reached: reached,
            next_goal_c_opt,
        });
        run.trajectory.goals_reached = run.goal_index;
        run.trajectory.terminated = run.terminated;
        run.trajectory.truncated = run.truncated;
        run.outcome = Some(effect.outcome);
        run.feedback = Some(effect.feedback);

        let step = Step {
            observation: self.observation_of(&run),
            feedback: run.feedback.clone().unwrap_or_default(),
            terminated: run.terminated,
            truncated: run.truncated,
            info: self.info_of(&run),
        };
        self.run = Some(run);
        Ok(step)
    }

    /// Whether the episode ended (or was never started).
    pub fn is_done(&self) -> bool {
        self.run
            .as_ref()
            .is_none_or(|r| r.terminated || r.truncated)
    }

    /// What the agent sees now.
    pub fn observation(&self) -> Option<Observation> {
        self.run.as_ref().map(|r| self.observation_of(r))
    }

    /// Diagnostics now.
    pub fn info(&self) -> Option<Info> {
        self.run.as_ref().map(|r| self.info_of(r))
    }

    /// The record so far.
    pub fn trajectory(&self) -> Option<&Trajectory> {
        self.run.as_ref().map(|r| &r.trajectory)
    }

    /// How this episode's views are drawn (its settings' `render`; static
    /// before any reset).
    pub fn render_mode(&self) -> RenderMode {
        self.run
            .as_ref()
            .map_or(RenderMode::Static, |r| r.trajectory.settings.render)
    }

    /// The picture the agent sees now: the current view, drawn for the
    /// current state in live mode (see [`super::render`]). Decodes what it
    /// needs each call; an agent that steps often keeps a [`Renderer`].
    pub fn picture(&self) -> Result<ViewImage, SimError> {
        let run = self.run.as_ref().ok_or(SimError::NotReset)?;
        self.picture_with(&mut Renderer::new(self.device.bundle), run)
    }

    /// [`Self::picture`] with a renderer that keeps its decoded images.
    pub fn picture_in(&self, renderer: &mut Renderer<'_>) -> Result<ViewImage, SimError> {
        let run = self.run.as_ref().ok_or(SimError::NotReset)?;
        self.picture_with(renderer, run)
    }

    fn picture_with(&self, renderer: &mut Renderer<'_>, run: &Run) -> Result<ViewImage, SimError> {
        let state = self.device.states[run.node.state].name;
        let view = self.device.views[run.node.view].name;
        renderer
            .render(state, view, run.trajectory.settings.render)
            .map_err(|e| SimError::Render(e.to_string()))
    }

    /// The record, ending the episode's use.
    pub fn into_trajectory(self) -> Result<Trajectory, SimError> {
        self.run.map(|r| r.trajectory).ok_or(SimError::NotReset)
    }

    /// Carries another episode's state over (the run under way and the
    /// memoised C_opt values), for a copy on the same bundle compiled
    /// again ([`super::OwnedEpisode`]'s `clone`).
    pub(crate) fn take_state_of(&mut self, other: &Episode<'_>) {
        self.run = other.run.clone();
        self.c_opt_cache = other.c_opt_cache.clone();
    }

    /// C_opt of a goal state from a point of the episode (memoised).
    pub fn c_opt(&mut self, from: Node, goal: usize) -> Option<u32> {
        if let Some(c) = self.c_opt_cache.get(&(from, goal)) {
            return *c;
        }
        let c = plan(&self.device, from, goal).map(|p| p.c_opt());
        self.c_opt_cache.insert((from, goal), c);
        c
    }

    fn observation_of(&self, run: &Run) -> Observation {
        let v = &self.device.views[run.node.view];
        Observation {
            view: v.name.to_string(),
            image: ImageRef {
                view: v.name.to_string(),
                width: v.width,
                height: v.height,
            },
            views: if run.node.unlocked {
                self.views_unlocked.clone()
            } else {
                self.views_locked.clone()
            },
            feedback: run.feedback.clone(),
            instruction: run.instructions.get(run.goal_index).cloned(),
        }
    }

    fn info_of(&self, run: &Run) -> Info {
        Info {
            state: self.device.states[run.node.state].name.to_string(),
            view: self.device.views[run.node.view].name.to_string(),
            dashboard_unlocked: run.node.unlocked,
            goal_index: run.goal_index,
            goals_total: run.goals.len(),
            steps: run.steps,
            budget_global: run.budget_global_total.saturating_sub(run.steps),
            budget_global_total: run.budget_global_total,
            budget_local: run.budget_local,
            c_opt: run.c_opt,
            outcome: run.outcome,
        }
    }
}
