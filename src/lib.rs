//! contact-fmu: contact-dynamics and terramechanics models (the DLR Contact Dynamics
//! Library family: SCM, BBCC, TerRA, ...) packaged as FMI 2.0 Co-Simulation FMUs.
//!
//! Data flows one way (see `README.md`, design):
//!
//! ```text
//! scenario (parse, validate) -> registry -> models (physics, no FMI)
//!     -> cosim (World: variable table, do_step, snapshots) -> FMI ABI (fmu-template) / packager
//! ```
//!
//! - [`scenario`]: the scenario JSON format, its validation and its JSON Schema.
//! - [`registry`]: every model, in call order; the only module that names them all.
//! - [`models`]: the physics. Pure functions and small state structs; no FMI, no I/O.
//! - [`geometry`], [`rigid_body`]: the world's shapes, meshes, terrain surfaces and
//!   free bodies, shared by the models and the world.
//! - [`cosim`]: the co-simulation world: the variable table (the single source of truth
//!   for value references, used by the runtime *and* by the modelDescription.xml writer),
//!   stepping, FMU state snapshots.
//! - [`packager`] (feature `packager`): modelDescription.xml, documentation, `.fmu` archive.

pub mod assets;
pub mod cosim;
pub mod geometry;
pub mod guid;
pub mod models;
pub mod parallel;
pub mod pmath;
pub mod registry;
pub mod rigid_body;
pub mod scenario;
pub(crate) mod wide;

#[cfg(feature = "packager")]
pub mod packager;

/// The `contact-fmu` command line (the executable and the Python console script).
#[cfg(feature = "packager")]
pub mod cli;

/// Calibration (`contact-fmu fit`).
#[cfg(feature = "packager")]
pub mod fit;

/// Version of the runtime and the packager. Part of every FMU's GUID, so an FMU packaged
/// by one version is refused by the runtime of another.
pub const RUNTIME_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Name written as `generationTool` into modelDescription.xml.
pub const GENERATION_TOOL: &str = concat!("contact-fmu ", env!("CARGO_PKG_VERSION"));
