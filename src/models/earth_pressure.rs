//! Rankine's passive earth pressure, shared by TerRA's soil resistance (Barthelmes
//! 2018, eq. (24)) and SCM's side pressure.

use crate::pmath;
/// sqrt(N_phi) = tan(pi/4 + phi/2) for the angle of internal friction `phi` (rad):
/// a smooth vertical wall pushed into the soil meets sigma_p(d) = gamma d N_phi +
/// 2 c sqrt(N_phi) at depth d.
pub fn passive_sqrt(phi: f64) -> f64 {
    pmath::tan(std::f64::consts::FRAC_PI_4 + 0.5 * phi)
}
