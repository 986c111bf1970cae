//! What every wheel-soil model shares: the wheel's kinematics over the terrain in
//! its contact frame ([`WheelInput`], [`contact`]), the forces a model returns
//! ([`WheelForces`]), and the force element that puts a model on the world's wheel
//! bodies ([`element`]). TerRA, the Bekker models and the rheological model read the
//! same input; the models themselves know nothing of bodies or FMI.

pub mod contact;
pub mod element;
pub(crate) mod check;

pub use contact::{contact, WheelGeometry};

/// The wheel's motion relative to the terrain at one instant, contact frame: normal
/// n out of the ground, forward f = axle x n.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WheelInput {
    /// Total geometric sinkage z of the lowest wheel point below the surface, m
    /// (Barthelmes 2018 eq. (1)).
    pub z: f64,
    /// dz/dt, m/s.
    pub z_rate: f64,
    /// Wheel angular velocity about its axle, rad/s, positive drives forward.
    pub omega: f64,
    /// Hub velocity along the forward direction f, v_t,x, m/s.
    pub forward_velocity: f64,
    /// Terrain inclination along f, alpha, rad, uphill positive (Barthelmes 2018
    /// eq. (12)).
    pub slope: f64,
    /// Hub velocity along the axle a = n x f (the wheel's +y in the tangent plane),
    /// m/s: side slip when non-zero. The planar models ignore it.
    pub lateral_velocity: f64,
    /// Camber: the axle's tilt out of the tangent plane, asin(a . n), rad; positive
    /// lifts the wheel's +y side. The planar models ignore it.
    pub camber: f64,
    /// The hub's horizontal position (world x, y), m, for models whose ground
    /// changes from place to place.
    pub position: [f64; 2],
}

/// What a wheel-soil model puts on the wheel (contact frame).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WheelForces {
    /// Force along the terrain normal n, N.
    pub normal: f64,
    /// Force along the forward direction f, N (drawbar pull when positive).
    pub tangential: f64,
    /// Torque of the soil on the wheel about its axle (axle = n x f... the wheel's
    /// +y), N m; negative resists a wheel driving forward.
    pub torque: f64,
    /// dF_n/dz, N/m, for drivers that integrate the carrier implicitly.
    pub stiffness: f64,
    /// dF_n/d(dz/dt), N s/m.
    pub damping: f64,
    /// The wheel touches the ground.
    pub in_contact: bool,
    /// Force along the axle direction n x f, N (lateral; 0 for the planar models).
    pub lateral: f64,
}

/// The direction the wheel travels along its forward direction, +1 or -1, from the
/// hub's speed `v`, else the wheel's angular velocity `omega`, else +1: arc models
/// evaluate a wheel moving backwards as one moving forwards with the signs turned.
pub fn travel_direction(omega: f64, v: f64) -> f64 {
    if v != 0.0 {
        v.signum()
    } else if omega != 0.0 {
        omega.signum()
    } else {
        1.0
    }
}

/// Longitudinal slip: `(omega r - v)/(omega r)` when driving (|omega r| >= |v|),
/// `(omega r - v)/v` when braking (skid, negative); 0 when both are zero.
pub fn slip(rim_speed: f64, forward_velocity: f64) -> f64 {
    let vs = rim_speed - forward_velocity;
    if vs == 0.0 {
        0.0
    } else if rim_speed.abs() >= forward_velocity.abs() {
        vs / rim_speed
    } else {
        vs / forward_velocity
    }
}
