//! Leite and Schäfer's comprehensive wheel-terrain contact model (Leite 2010, section
//! 3): one wheel model that switches between rigid ground, rocks and soft soil.
//!
//! Built so far: the rigid-surface compliance of section 3.1 ([`compliance`]), which
//! section 3.2 reuses against rocks. Not yet: the soft-soil slices (section 3.3), the
//! rock collision, the switching between surfaces and the model's adapter (issue 24).

pub mod compliance;
