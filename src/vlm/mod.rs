//! Talking to vision-language models, without the transport: the versioned
//! system prompt, per-turn messages, request and response types for
//! OpenAI-compatible and Anthropic APIs, coordinate conventions, history
//! windows and image perturbations. Pure functions; the browser supplies
//! HTTP. Not built yet.
