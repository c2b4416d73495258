//! EPIC-Bench scoring with official parity: COCO RLE masks, the official
//! formatter (raw model text → std_format), the scorer and its aggregation,
//! and a corrected mode beside it. Not built yet.
