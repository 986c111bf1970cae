//! The units FMU variables use, with their SI base-unit exponents for
//! `<UnitDefinitions>`. A variable's unit must be one of these names.

/// One unit: its name and exponents of kg, m, s, rad.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitDef {
    /// Unit name as written on variables (`N.m`, `m/s2`).
    pub name: &'static str,
    pub kg: i32,
    pub m: i32,
    pub s: i32,
    pub rad: i32,
}

const fn u(name: &'static str, kg: i32, m: i32, s: i32, rad: i32) -> UnitDef {
    UnitDef {
        name,
        kg,
        m,
        s,
        rad,
    }
}

/// Every unit the runtime may use.
pub const UNITS: &[UnitDef] = &[
    u("1", 0, 0, 0, 0),
    u("s", 0, 0, 1, 0),
    u("m", 0, 1, 0, 0),
    u("kg", 1, 0, 0, 0),
    u("m/s", 0, 1, -1, 0),
    u("m/s2", 0, 1, -2, 0),
    u("rad", 0, 0, 0, 1),
    u("rad/s", 0, 0, -1, 1),
    u("N", 1, 1, -2, 0),
    u("N.m", 1, 2, -2, 0),
    u("Pa", 1, -1, -2, 0),
    u("kg.m2", 1, 2, 0, 0),
    u("N/m", 1, 0, -2, 0),
    u("s/m", 0, -1, 1, 0),
    u("1/s", 0, 0, -1, 0),
    u("kg/m3", 1, -3, 0, 0),
    u("m2", 0, 2, 0, 0),
    u("m3", 0, 3, 0, 0),
    u("Pa/m", 1, -2, -2, 0),
    u("Pa.s/m", 1, -2, -1, 0),
    u("N.s/m", 1, 0, -1, 0),
];

/// The definition of unit `name`, if the runtime knows it.
pub fn unit(name: &str) -> Option<&'static UnitDef> {
    UNITS.iter().find(|u| u.name == name)
}
