//! SWITCH scoring: MCQ answer extraction and accuracy per skill column,
//! OpenQA exact match and token F1, the judge protocol as pure request and
//! reply functions, and video-judge aggregation. Not built yet.
