//! The `bbcc` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md). Its value checks are [`super::check`].
//!
//! Read by [`super::adapter`]: the constants become FMI parameters `bbcc.*`, the pairs
//! the broad phase's filter.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};


/// BBCC contact settings (Buse 2023, section 4.1). FMI parameters `bbcc.v_d`,
/// `bbcc.impact_velocity_min`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BbccSettings {
    /// Velocity dead band v_d of the regularized Coulomb friction, eq. (4), m/s.
    #[serde(default = "BbccSettings::default_v_d")]
    pub v_d: f64,
    /// Lower bound of the pre-impact velocity in the Hunt-Crossley damping, eq. (2),
    /// m/s. Keeps the damping finite for contacts that start at rest.
    #[serde(default = "BbccSettings::default_impact_velocity_min")]
    pub impact_velocity_min: f64,
    /// Take the viscous parts of every contact (the damping of eq. (1)-(2), the
    /// friction of eq. (4)/(5), the spin torque of eq. (6)) linearly implicitly over
    /// the sub-step (the model step, or shorter where the communication step is not a
    /// multiple of it), on each free body's mass and inertia shared among its contacts
    /// (those of the last evaluation): they never reverse a relative velocity within a
    /// step, so light bodies on stiff contacts stay stable at longer model steps
    /// (measured in docs/bbcc-at-scale.md). The elastic part stays explicit. Off: the
    /// paper's explicit forces.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub semi_implicit: bool,
    /// With `semi_implicit`: sub-steps as short as the contacts need, the model step
    /// where they allow it. The elastic part of eq. (1) is explicit and stable while a
    /// sub-step h keeps omega h below 2, omega^2 = 1.5 k delta^0.5 w (its stiffness on
    /// the effective inverse mass w at the contact point, each body's mass shared among
    /// its contacts): a sub-step with omega h over 1 anywhere is taken again in halves
    /// (down to 1/64 of the model step), and so is the one before it, in which the
    /// contact closed; the next sub-steps grow back to the model step. A rock landing
    /// at metres per second on a light one is stepped finely for the milliseconds of
    /// the impact, the resting scene at the model step. Results are the fixed
    /// sub-steps' to the bit wherever no sub-step is split (docs/bbcc-at-scale.md).
    /// Off: every sub-step the model step.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adaptive_step: bool,
    /// With `semi_implicit`: the elastic part of eq. (1) linearly implicit too, all
    /// contacts together. After every force of the sub-step h is known, each contact
    /// point gets an impulse L = h^2 K r (K = 1.5 k delta^0.5 its share's stiffness, r
    /// its penetration rate at the sub-step's end, after every impulse), found by
    /// projected Gauss-Seidel over the points (L at least -h F_N: never a pull), and
    /// applied as the force L / h: Euler backward on the penetration, stable at
    /// sub-steps far past the explicit limit omega h < 2. At rest the velocities the
    /// forces give are already zero, so the impulses are zero and the penetrations
    /// Hertz's (a contact made implicit alone sinks: docs/bbcc-at-scale.md). The
    /// velocities it predicts take the contact forces, gravity and each body's
    /// `f_ext`/`t_ext` inputs; other models' forces on the same body are not in them.
    /// With `stick`, the stick spring's rate part joins the same solve (two tangent
    /// rows per contact, their force within Coulomb's bound): at a 1 ms step a chip of
    /// 5 g pinched under a 1 kg cube rests, where the spring contact by contact threw
    /// chips of 50 g and less. A sweep after the first visits only the rows whose
    /// bodies moved; at most 500 sweeps. Not with `adaptive_step`. Off: the elastic
    /// part explicit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub implicit_normal: bool,
    /// Spread each contact of two flat-faced parts (cuboids, convex hulls, the ground
    /// plane) over its overlap: the vertices of each part inside the other, gathered
    /// into at most four points, each carrying a share of eq. (1) by its depth and the
    /// friction of that share. The total normal force is the paper's; a resting face
    /// then has a rocking damping and a twisting friction, and its contact point moves
    /// continuously as it tilts (docs/models/bbcc.md). Off: the paper's one point,
    /// the deepest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub contact_patch: bool,
    /// The contact patch as an elastic foundation (an extension of Buse 2023, whose
    /// eq. (1) is a point law): the overlap's thickness t along the normal is sampled
    /// on a lattice of 4 x 4 points over its box in the tangent plane (each line
    /// clipped against both parts), each point presses with k / R^2 t^1.5 on its
    /// cell's area (k and R of eq. (3): a layer as deep as the pair's radius), and the
    /// points are gathered into the four quadrants around the centre of pressure, a
    /// point on a quadrant's edge shared between the quadrants beside it. The normal
    /// force is then the gradient of one elastic energy (the overlap's integral of
    /// k / R^2 t^2.5 / 2.5), which eq. (1) at the deepest point, spread over a patch
    /// whose centre is elsewhere, is not: such a field does work around a closed path
    /// of poses, and at a 1 ms model step that work kept rocks in a pile rocking
    /// (docs/bbcc-at-scale.md). Eq. (2)'s damping applies to each point's share.
    /// Flat-faced parts only (hulls, boxes, half-spaces); an overlap too thin for any
    /// lattice point, and every other pair, keeps eq. (1). A face of area R^2 sinks as
    /// deep as under eq. (1), a smaller one deeper, a vertex much deeper (a cone of
    /// overlap: its integral of t^1.5 grows as delta^3.5): in the 500-rock pile at a
    /// 1 ms step the deepest penetration is 3 % of a rock's size against 0.06 %. Implies
    /// `contact_patch`. Off: eq. (1) at the deepest point, spread over the overlap's
    /// vertices.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub elastic_foundation: bool,
    /// A tangential stick spring beside the friction of eq. (4)/(5), which is zero at
    /// zero slip and so lets any tangential load creep (a rock on a slope slides at
    /// about v_d, the paper's Fig. 7): the slip at the contact since it began, turned
    /// into the tangent plane, pulls back with the normal contact's stiffness (eq. (1)
    /// linearized) times Mindlin's 2 (1 - nu) / (2 - nu); past mu F_N it slides. It
    /// holds the contact's twist about the normal as well (eq. (6) is zero at zero
    /// spin): each patch point a spring at its lever, held within the points' friction
    /// at their levers. Bodies then rest on slopes and in piles (docs/models/bbcc.md).
    /// Implies
    /// `contact_patch` (a spring on a point that jumps between a face's vertices would
    /// pump energy) and `reimpact` (a rock resting on a lasting contact rocks on it).
    /// Off: the paper's friction alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stick: bool,
    /// Each new compression of a lasting contact is an impact for the damping of eq.
    /// (2): when its penetration, having decreased, grows again, the impact velocity is
    /// taken anew (at least `impact_velocity_min`). Eq. (2) takes it when the contact
    /// starts and keeps it while the contact lasts, so a rock that landed at 3 m/s
    /// rests with the damping of a 3 m/s impact, d = 0.5 s/m, which leaves its rocking
    /// on the ground undamped (docs/models/bbcc.md). Single impacts are the paper's.
    /// Implied by `stick`. Off: the paper's impact velocity, kept while the contact
    /// lasts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reimpact: bool,
    /// Rolling resistance coefficient mu_r, 1 (0: off, the paper's): a torque against
    /// the bodies' relative rolling (their relative angular velocity across the contact
    /// normal) of at most mu_r R F_N (R the pair's effective radius of eq. (3), F_N the
    /// normal force of eq. (1)), regularized as the spin torque of eq. (6) with the
    /// rolling speed R |omega| against `v_d`, and with `semi_implicit` taken linearly
    /// implicitly as the other viscous parts. Point contacts roll without loss: a rock
    /// resting on two others swings about the line through its contacts like a
    /// pendulum for tens of seconds (docs/bbcc-at-scale.md); real contacts are areas,
    /// and discrete-element codes add this torque for what they dissipate (Ai et al.
    /// 2011, "Assessment of rolling resistance models in discrete element
    /// simulations", model A).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rolling_resistance: f64,
    /// Pairs that may touch: body names, collection names (`group`), or `"terrain"`.
    /// A pair of collections lets every member of one touch every member of the other;
    /// a collection paired with itself (`["pile", "pile"]`) lets each of its members
    /// touch every other one (a pile of rocks).
    pub pairs: Vec<[String; 2]>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl BbccSettings {
    /// Default of `v_d`, m/s.
    pub fn default_v_d() -> f64 {
        0.01
    }
    /// Default of `impact_velocity_min`, m/s.
    pub fn default_impact_velocity_min() -> f64 {
        0.01
    }
}
