//! One episode of a device (`specs/devices.md` sections 2 and 3).
//!
//! Will hold: the action text parser, matching a point to a component,
//! outcomes and feedback, goals, the global and local budgets, the planner
//! that computes C_opt, and trajectory recording (section 5).
