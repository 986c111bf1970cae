//! The physics. Models know nothing of FMI, files or JSON: they take body states and
//! parameters, return wrenches, and advance their own states.

pub mod bbcc;
pub mod bekker;
pub mod earth_pressure;
pub mod leite;
pub mod pcm;
pub mod quadrature;
pub mod rheological;
pub mod rig;
pub mod scm;
pub mod terra;
pub mod wheel;

pub use rig::single_wheel;
