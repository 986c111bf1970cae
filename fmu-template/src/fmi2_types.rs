//! The FMI 2.0 C types (fmi2TypesPlatform.h, fmi2FunctionTypes.h), declared by hand.
#![allow(non_camel_case_types, non_snake_case)]

use std::os::raw::{c_char, c_int, c_uint, c_void};

pub type fmi2Component = *mut c_void;
pub type fmi2ComponentEnvironment = *mut c_void;
pub type fmi2FMUstate = *mut c_void;
pub type fmi2ValueReference = c_uint;
pub type fmi2Real = f64;
pub type fmi2Integer = c_int;
pub type fmi2Boolean = c_int;
pub type fmi2Char = c_char;
pub type fmi2String = *const fmi2Char;
pub type fmi2Byte = c_char;

/// fmi2Status as the C enum's int (never transmuted from foreign values).
pub type fmi2Status = c_int;
pub const FMI2_OK: fmi2Status = 0;
pub const FMI2_WARNING: fmi2Status = 1;
pub const FMI2_DISCARD: fmi2Status = 2;
pub const FMI2_ERROR: fmi2Status = 3;
pub const FMI2_FATAL: fmi2Status = 4;
pub const FMI2_PENDING: fmi2Status = 5;

pub type fmi2Type = c_int;
pub const FMI2_COSIMULATION: fmi2Type = 1;

pub type fmi2StatusKind = c_int;
pub const FMI2_DO_STEP_STATUS: fmi2StatusKind = 0;
pub const FMI2_PENDING_STATUS: fmi2StatusKind = 1;
pub const FMI2_LAST_SUCCESSFUL_TIME: fmi2StatusKind = 2;
pub const FMI2_TERMINATED: fmi2StatusKind = 3;

pub const FMI2_TRUE: fmi2Boolean = 1;
pub const FMI2_FALSE: fmi2Boolean = 0;

/// The variadic logger: `logger(env, instanceName, status, category, message, ...)`.
pub type fmi2CallbackLogger = unsafe extern "C" fn(
    fmi2ComponentEnvironment,
    fmi2String,
    fmi2Status,
    fmi2String,
    fmi2String,
    ...
);

#[repr(C)]
#[derive(Clone, Copy)]
pub struct fmi2CallbackFunctions {
    pub logger: Option<fmi2CallbackLogger>,
    pub allocateMemory: Option<unsafe extern "C" fn(usize, usize) -> *mut c_void>,
    pub freeMemory: Option<unsafe extern "C" fn(*mut c_void)>,
    pub stepFinished: Option<unsafe extern "C" fn(fmi2ComponentEnvironment, fmi2Status)>,
    pub componentEnvironment: fmi2ComponentEnvironment,
}
