//! What the runtime can do and how it logs: read by the runtime to behave and by the
//! packager to write `<CoSimulation>` flags and `<LogCategories>`, so both agree.

/// The `<CoSimulation>` capability flags of every contact-fmu FMU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub needs_execution_tool: bool,
    pub can_handle_variable_communication_step_size: bool,
    pub can_interpolate_inputs: bool,
    pub max_output_derivative_order: u32,
    pub can_run_asynchronuously: bool,
    pub can_be_instantiated_only_once_per_process: bool,
    pub can_not_use_memory_management_functions: bool,
    pub can_get_and_set_fmu_state: bool,
    pub can_serialize_fmu_state: bool,
    pub provides_directional_derivative: bool,
}

/// The truth about this runtime.
pub const CAPABILITIES: Capabilities = Capabilities {
    needs_execution_tool: false,
    // fmi2DoStep sub-steps any communication step with the model step.
    can_handle_variable_communication_step_size: true,
    // Inputs are held constant over a step (zero-order hold).
    can_interpolate_inputs: false,
    max_output_derivative_order: 0,
    can_run_asynchronuously: false,
    // No global state: any number of instances per process, on any threads.
    can_be_instantiated_only_once_per_process: false,
    // The runtime allocates with Rust's allocator, not the importer's callbacks.
    can_not_use_memory_management_functions: true,
    can_get_and_set_fmu_state: true,
    can_serialize_fmu_state: true,
    provides_directional_derivative: false,
};

/// Log categories: (name, description). Errors and warnings are always passed to the
/// logger; the others only when enabled with fmi2SetDebugLogging (or `loggingOn`).
pub const LOG_CATEGORIES: &[(&str, &str)] = &[
    (
        "logEvents",
        "initialization, termination, reset, FMU state operations, step summaries",
    ),
    ("logStatusWarning", "warnings"),
    (
        "logStatusError",
        "errors: refused calls and values, with the reason",
    ),
    ("logStatusFatal", "fatal errors"),
    ("logCalls", "every FMI function call"),
    ("logAll", "all categories"),
];
