//! FineState-Bench scoring: the official loaders, reply parser, box test and
//! four rates per platform, and a corrected mode beside them. Not built yet.
