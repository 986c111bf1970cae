//! The FMI 2.0 Co-Simulation state machine (FMI 2.0 section 4.2.4, the table of
//! which function may be called in which state). One table, checked in one prologue.

/// Instance states as bits, so that a set of states is a mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u16)]
pub enum State {
    Instantiated = 1,
    InitializationMode = 2,
    StepComplete = 4,
    StepInProgress = 8,
    StepFailed = 16,
    StepCanceled = 32,
    Terminated = 64,
    Error = 128,
    Fatal = 256,
    /// FMI 3.0 only: between fmi3EnterConfigurationMode and fmi3ExitConfigurationMode.
    ConfigurationMode = 512,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Instantiated => "Instantiated",
            State::InitializationMode => "InitializationMode",
            State::StepComplete => "StepComplete",
            State::StepInProgress => "StepInProgress",
            State::StepFailed => "StepFailed",
            State::StepCanceled => "StepCanceled",
            State::Terminated => "Terminated",
            State::Error => "Error",
            State::Fatal => "Fatal",
            State::ConfigurationMode => "ConfigurationMode",
        }
    }

    /// The state's name in FMI version 3 (`fmi3`) or 2: FMI 3.0 calls the state
    /// between steps Step Mode.
    pub fn name_in(self, fmi3: bool) -> &'static str {
        match self {
            State::StepComplete if fmi3 => "StepMode",
            _ => self.name(),
        }
    }

    /// The byte stored with an FMU state snapshot.
    pub fn tag(self) -> u8 {
        (self as u16).trailing_zeros() as u8
    }

    /// Inverse of [`State::tag`].
    pub fn from_tag(tag: u8) -> Option<State> {
        ALL.iter().copied().find(|s| s.tag() == tag)
    }
}

const ALL: [State; 10] = [
    State::Instantiated,
    State::InitializationMode,
    State::StepComplete,
    State::StepInProgress,
    State::StepFailed,
    State::StepCanceled,
    State::Terminated,
    State::Error,
    State::Fatal,
    State::ConfigurationMode,
];

/// A set of states.
pub type Mask = u16;

const I: Mask = State::Instantiated as Mask;
const INIT: Mask = State::InitializationMode as Mask;
const SC: Mask = State::StepComplete as Mask;
const SIP: Mask = State::StepInProgress as Mask;
const SF: Mask = State::StepFailed as Mask;
const SCA: Mask = State::StepCanceled as Mask;
const T: Mask = State::Terminated as Mask;
const E: Mask = State::Error as Mask;
const F: Mask = State::Fatal as Mask;
const CFG: Mask = State::ConfigurationMode as Mask;

/// Where each function may be called.
pub mod allowed {
    use super::*;
    pub const SET_DEBUG_LOGGING: Mask = I | INIT | SC | SIP | SF | SCA | T | E | CFG;
    /// Freeing is always possible, also after a fatal error: nothing else is left to do.
    pub const FREE_INSTANCE: Mask = I | INIT | SC | SF | SCA | T | E | F | CFG;
    pub const SETUP_EXPERIMENT: Mask = I;
    pub const ENTER_INITIALIZATION_MODE: Mask = I;
    pub const EXIT_INITIALIZATION_MODE: Mask = INIT;
    pub const TERMINATE: Mask = SC | SF | SCA;
    pub const RESET: Mask = I | INIT | SC | SF | SCA | T | E | CFG;
    pub const GET_VALUES: Mask = INIT | SC | SF | SCA | T | E;
    pub const SET_VALUES: Mask = I | INIT | SC;
    pub const FMU_STATE: Mask = I | INIT | SC | SF | SCA | T | E;
    pub const GET_DIRECTIONAL_DERIVATIVE: Mask = INIT | SC | SF | SCA | T | E;
    pub const SET_REAL_INPUT_DERIVATIVES: Mask = I | INIT | SC;
    pub const GET_REAL_OUTPUT_DERIVATIVES: Mask = SC | SF | SCA | T | E;
    pub const DO_STEP: Mask = SC;
    pub const CANCEL_STEP: Mask = SIP;
    pub const GET_STATUS: Mask = SC | SIP | SF | SCA | T;
    /// FMI 3.0 configuration of structural parameters (FMI 3.0 section 2.3.2).
    pub const ENTER_CONFIGURATION_MODE: Mask = I;
    pub const EXIT_CONFIGURATION_MODE: Mask = CFG;
    /// A structural parameter of variability fixed: read anywhere values are, and in
    /// Instantiated and Configuration Mode; set in Configuration Mode only.
    pub const GET_STRUCTURAL: Mask = GET_VALUES | I | CFG;
    pub const SET_STRUCTURAL: Mask = CFG;
}

/// Names of the states in `mask`, for messages.
pub fn names(mask: Mask) -> String {
    names_in(mask, false)
}

/// Names of the states in `mask` in FMI version 3 (`fmi3`) or 2, for messages.
pub fn names_in(mask: Mask, fmi3: bool) -> String {
    ALL.iter()
        .filter(|s| mask & (**s as Mask) != 0)
        .map(|s| s.name_in(fmi3))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        for s in ALL {
            assert_eq!(State::from_tag(s.tag()), Some(s));
        }
        assert_eq!(State::from_tag(200), None);
    }

    #[test]
    fn do_step_only_after_initialization() {
        assert_eq!(names(allowed::DO_STEP), "StepComplete");
        assert!(allowed::RESET & (State::Error as Mask) != 0);
        assert!(allowed::FMU_STATE & (State::Error as Mask) != 0);
    }
}
