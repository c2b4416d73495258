//! Agents that need no model (`specs/devices.md` section 7): the oracle that
//! follows an optimal path, a seeded random agent, and a scripted agent that
//! replays action strings. Not built yet.
