//! Where the world's own variables live: the value references of the terrain's, each
//! body's (shape, motion, contact outputs) and the world's parameters, as
//! [`super::layout`] declares them. What the world, the models and the feedthrough
//! resolution read them by; imports nothing of the world.

use crate::scenario::types::Shape;

/// Value references of the terrain surface's parameters.
#[derive(Debug, Clone)]
pub enum TerrainVrs {
    Flat {
        height: usize,
    },
    Inclined {
        height: usize,
        angle: usize,
    },
    Ramps {
        height: usize,
        starts: Vec<usize>,
        angles: Vec<usize>,
    },
    Profile {
        xs: Vec<usize>,
        zs: Vec<usize>,
    },
    /// A procedural surface: fixed by the scenario, no parameters.
    Generated,
}

/// Value references that depend on how a body moves.
#[derive(Debug, Clone)]
pub enum MotionVrs {
    /// Inputs from the importing tool.
    Kinematic {
        r: [usize; 3],
        q: [usize; 4],
        v: [usize; 3],
        w: [usize; 3],
        /// Boolean parameter: move on with v, w within a communication step.
        extrapolate: usize,
    },
    /// Pose parameters of a body that does not move.
    Fixed {
        r0: [usize; 3],
        q0: [usize; 4],
        incline: Option<usize>,
    },
    /// Moved by a model (the single-wheel rig's wheel): its state is written by that
    /// model, not integrated by the world.
    Driven,
    /// Parameters, external-load inputs and state outputs of a free body.
    Free {
        /// Boolean parameter: rotation locked.
        locked: usize,
        mass: usize,
        inertia: [usize; 3],
        r0: [usize; 3],
        q0: [usize; 4],
        v0: [usize; 3],
        w0: [usize; 3],
        /// Inputs `<b>.f_ext`, `<b>.t_ext`, unless the scenario leaves them out.
        f_ext: Option<[usize; 3]>,
        t_ext: Option<[usize; 3]>,
        r: [usize; 3],
        q: [usize; 4],
        v: [usize; 3],
        w: [usize; 3],
        /// The planar joint to the world, if any.
        joint: Option<JointVrs>,
    },
}

/// Value references of a free body's planar joint: the prescribed speed and rate
/// (inputs) and the joint's force and torque (outputs), each when prescribed.
#[derive(Debug, Clone, Copy)]
pub struct JointVrs {
    /// (input `<b>.joint.vx`, output `<b>.joint.fx`)
    pub vx: Option<(usize, usize)>,
    /// (input `<b>.joint.omega`, output `<b>.joint.my`)
    pub omega: Option<(usize, usize)>,
}

/// Value references of a body's shape.
#[derive(Debug, Clone, Copy)]
pub enum ShapeVrs {
    Sphere {
        radius: usize,
    },
    Wheel {
        radius: usize,
        width: usize,
    },
    Cuboid {
        size: [usize; 3],
    },
    Cylinder {
        radius: usize,
        height: usize,
    },
    /// `count` is an Integer value reference.
    GrouserWheel {
        radius: usize,
        width: usize,
        count: usize,
        height: usize,
        thickness: usize,
    },
    /// Flat circular plate (axis body z, origin at the bottom face centre).
    Plate {
        radius: usize,
        thickness: usize,
    },
    /// Torus about body z.
    Torus {
        major: usize,
        minor: usize,
    },
    /// Geometry from the scenario (meshes, compounds, grids): no parameters.
    Given,
}

/// A body's contact wrench outputs.
#[derive(Debug, Clone, Copy)]
pub struct BodyOutputs {
    pub f: [usize; 3],
    pub t: [usize; 3],
    /// Boolean value reference.
    pub contact: usize,
}

/// One body of the world: a scenario body, or one a model drives (the rig's wheel).
#[derive(Debug, Clone)]
pub struct BodyVrs {
    /// The body's name (the prefix of its variables).
    pub name: String,
    /// Its geometry as the scenario gives it.
    pub spec: Shape,
    /// Value references of its shape's parameters.
    pub shape: ShapeVrs,
    pub motion: MotionVrs,
    /// `<body>.f`, `.t`, `.contact`: scenario bodies only.
    pub outputs: Option<BodyOutputs>,
    /// For a body a model added: the key of the contact model that acts on it (e.g.
    /// "scm" for the rig's wheel on SCM soil); None for scenario bodies, which the
    /// scenario's model sections name.
    pub contact_model: Option<&'static str>,
}

/// Where the world's own variables live in the variable table.
#[derive(Debug, Clone)]
pub struct Layout {
    pub model_step: usize,
    pub gravity: [usize; 3],
    pub terrain: TerrainVrs,
    /// The scenario's bodies, then the bodies models added.
    pub bodies: Vec<BodyVrs>,
    /// Per model (in the order of the returned list): the positions in the variable
    /// table of the variables it declared (its own inputs, outputs and parameters).
    pub model_vars: Vec<std::ops::Range<usize>>,
}
