//! VGEBench metrics computed from trajectories and bundles
//! (`specs/devices.md` section 6): SR, SSR, SPL, State-F1, EIR, TIR, VSPS,
//! GVPE, EER, PSR, Avg Dist, Avg W-Dist, the error taxonomy and the
//! view-switch classes. Not built yet.
