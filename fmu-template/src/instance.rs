//! One FMU instance: the world, the scenario it came from, the logger and the FMI state.

use crate::logger::{Category, Logger};
use crate::state_machine::State;
use contact_fmu::cosim::variables::Phase;
use contact_fmu::cosim::{Dynamic, World};
use contact_fmu::scenario::{self, Scenario};
use std::ffi::CString;
use std::path::Path;

/// An FMU state handed to the importer by fmi2GetFMUstate. `repr(C)`: the two header
/// words come first, so that a pointer from elsewhere (another FMU's state, another
/// runtime version's, a stray pointer to readable memory) is recognised from them
/// before anything else of it is read.
#[repr(C)]
pub struct SavedState {
    /// Guards against foreign pointers passed back to fmi2SetFMUstate.
    pub magic: u64,
    /// [`owner_of`] the GUID of the FMU that made it: a state of another FMU (or of
    /// another build of this runtime, whose GUIDs differ) is refused.
    pub owner: u64,
    pub state: State,
    pub dynamic: Dynamic,
}

/// The owner word of the states of the FMU with `guid` (FNV-1a of the GUID).
pub fn owner_of(guid: &str) -> u64 {
    guid.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `SavedState::magic`.
pub const SAVED_STATE_MAGIC: u64 = 0x5354_4154_4555_4d46; // "FMUESTAT"

/// One instance (the `fmi2Component`).
pub struct Instance {
    pub name: String,
    pub guid: String,
    pub scenario: Scenario,
    /// The FMU's resources folder (scenario and assets).
    pub resource_dir: std::path::PathBuf,
    pub world: World,
    pub state: State,
    pub logger: Logger,
    pub stop_time: Option<f64>,
    /// Strings handed out by fmi2GetString, valid until the next call.
    pub string_buffer: Vec<CString>,
    /// Set for an instance made by fmi3InstantiateCoSimulation: the FMI 3.0 view of
    /// the variables its `fmi3*` calls go through.
    pub fmi3: Option<Box<crate::fmi3::Fmi3Instance>>,
    /// For the platform tests only: the FMI function (named by the environment
    /// variable `CONTACT_FMU_TEST_PANIC` at fmi2Instantiate) that panics on purpose, to
    /// show that the boundary catches a panic on every platform (ci/platforms.py).
    pub test_panic: Option<String>,
}

impl Instance {
    /// Reads `resources/scenario.json` from `resource_dir`, checks the GUID and builds
    /// the world.
    pub fn new(
        name: &str,
        guid: &str,
        resource_dir: &Path,
        logger: Logger,
    ) -> Result<Instance, String> {
        let file = resource_dir.join("scenario.json");
        let scenario = scenario::load(&file)
            .map_err(|e| format!("cannot load the scenario of this FMU: {e}"))?;
        let expected = scenario.guid();
        if guid != expected {
            return Err(format!(
                "GUID mismatch: the importer passed {guid}, but this FMU's resources/scenario.json and runtime {} give {expected}. \
                 The modelDescription.xml and the resources do not belong together (repackage the scenario).",
                contact_fmu::RUNTIME_VERSION
            ));
        }
        let world = World::new(&scenario, Some(resource_dir))
            .map_err(|e| format!("cannot build the model: {e}"))?;
        Ok(Instance {
            name: name.to_string(),
            guid: expected,
            scenario,
            resource_dir: resource_dir.to_path_buf(),
            world,
            state: State::Instantiated,
            logger,
            stop_time: None,
            string_buffer: vec![],
            fmi3: None,
            test_panic: std::env::var("CONTACT_FMU_TEST_PANIC").ok(),
        })
    }

    /// The setter phase of the current state (only called where setters are allowed).
    pub fn phase(&self) -> Phase {
        match self.state {
            State::Instantiated => Phase::Instantiated,
            State::InitializationMode => Phase::Initialization,
            _ => Phase::Stepping,
        }
    }

    /// Logs an error (always shown).
    pub fn error(&self, message: &str) {
        self.logger
            .log(crate::fmi2_types::FMI2_ERROR, Category::Error, message);
    }

    /// Logs an event (shown when logEvents is on).
    pub fn event(&self, message: &str) {
        self.logger
            .log(crate::fmi2_types::FMI2_OK, Category::Events, message);
    }

    /// Back to the state after fmi2Instantiate.
    pub fn reset(&mut self) -> Result<(), String> {
        self.world = World::new(&self.scenario, Some(&self.resource_dir))
            .map_err(|e| format!("cannot rebuild the model: {e}"))?;
        self.state = State::Instantiated;
        self.stop_time = None;
        Ok(())
    }
}
