//! The Bekker wheel models of the contact-dynamics library (Buse 2023, section 4.3.2),
//! after Wong 2008 (*Theory of Ground Vehicles*, ch. 2): the "pure" Bekker wheel
//! ([`pure`]) and the Bekker-Janosi-Hanamoto wheel with stress distributions along
//! the contact arc ([`bjh`]). Both share Bekker's soil constants ([`BekkerSoil`]) and
//! are force elements on wheel bodies (see [`crate::models::wheel`]).

pub mod adapter;
pub mod bjh;
pub mod pure;
pub mod check;
pub mod section;
mod soil;

pub use bjh::BjhModel;
pub use pure::BekkerModel;
pub use soil::BekkerSoil;
