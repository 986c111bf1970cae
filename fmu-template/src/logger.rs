//! Messages to the importer's logger callback, filtered by the log categories of
//! modelDescription.xml.

use crate::fmi2_types::*;
use contact_fmu::cosim::capabilities::LOG_CATEGORIES;
use std::ffi::CString;

/// Category index in [`LOG_CATEGORIES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Events = 0,
    Warning = 1,
    Error = 2,
    Fatal = 3,
    Calls = 4,
}

/// The categories `loggingOn` of fmi2Instantiate turns on: all but `logCalls`. A line
/// per FMI call is a trace that masters which turn logging on by default (libcosim
/// does) would pay for on every call, read or not (formatting on both sides: about a
/// third of a small loop's run time in libcosim, docs/cosimulation.md). It is on after
/// fmi2SetDebugLogging names it, `logAll`, or no category.
pub fn categories_at_instantiate(logging_on: bool) -> [bool; 6] {
    let mut on = [logging_on; 6];
    on[Category::Calls as usize] = false;
    on
}

/// The FMI 3.0 log callback: `logMessage(instanceEnvironment, status, category,
/// message)` (not variadic: the message is plain text).
pub type Fmi3LogMessage =
    unsafe extern "C" fn(*mut std::os::raw::c_void, fmi2Status, fmi2String, fmi2String);

/// Where messages go: the importer's FMI 2.0 or FMI 3.0 callback.
enum Callback {
    Fmi2(fmi2CallbackLogger),
    Fmi3(Fmi3LogMessage),
}

/// The logger callback of one instance and which categories are on.
pub struct Logger {
    callback: Option<Callback>,
    environment: fmi2ComponentEnvironment,
    instance_name: CString,
    enabled: [bool; 6],
}

fn c_text(s: &str) -> CString {
    // A NUL inside a message would cut it; show it instead.
    CString::new(s.replace('\0', "\\0")).unwrap_or_default()
}

impl Logger {
    /// From the importer's callbacks; `logging_on` enables all categories.
    pub fn new(functions: &fmi2CallbackFunctions, instance_name: &str, logging_on: bool) -> Logger {
        Logger {
            callback: functions.logger.map(Callback::Fmi2),
            environment: functions.componentEnvironment,
            instance_name: c_text(instance_name),
            enabled: categories_at_instantiate(logging_on),
        }
    }

    /// From the FMI 3.0 `logMessage` callback and `instanceEnvironment` of
    /// fmi3Instantiate*; `logging_on` as for [`Logger::new`].
    pub fn fmi3(
        log_message: Option<Fmi3LogMessage>,
        environment: *mut std::os::raw::c_void,
        instance_name: &str,
        logging_on: bool,
    ) -> Logger {
        Logger {
            callback: log_message.map(Callback::Fmi3),
            environment,
            instance_name: c_text(instance_name),
            enabled: categories_at_instantiate(logging_on),
        }
    }

    /// fmi2SetDebugLogging: `names` empty means all categories.
    pub fn set_categories(&mut self, on: bool, names: &[String]) -> Result<(), String> {
        if names.is_empty() {
            self.enabled = [on; 6];
            return Ok(());
        }
        let mut idx = vec![];
        for n in names {
            match LOG_CATEGORIES.iter().position(|(c, _)| c == n) {
                Some(i) => idx.push(i),
                None => {
                    let known: Vec<&str> = LOG_CATEGORIES.iter().map(|(c, _)| *c).collect();
                    return Err(format!(
                        "unknown log category '{n}' (this FMU has {})",
                        known.join(", ")
                    ));
                }
            }
        }
        for i in idx {
            if LOG_CATEGORIES[i].0 == "logAll" {
                self.enabled = [on; 6];
            } else {
                self.enabled[i] = on;
            }
        }
        Ok(())
    }

    /// Is `category` passed to the logger? Warnings and errors always are.
    pub fn is_on(&self, category: Category) -> bool {
        matches!(
            category,
            Category::Warning | Category::Error | Category::Fatal
        ) || self.enabled[category as usize]
    }

    /// Sends `message` with `status` in `category`, if that category is on.
    pub fn log(&self, status: fmi2Status, category: Category, message: &str) {
        let Some(callback) = &self.callback else {
            return;
        };
        if !self.is_on(category) {
            return;
        }
        let cat = c_text(LOG_CATEGORIES[category as usize].0);
        let msg = c_text(message);
        match callback {
            // The message goes through "%s": a '%' in it is never read as a directive.
            Callback::Fmi2(callback) => unsafe {
                callback(
                    self.environment,
                    self.instance_name.as_ptr(),
                    status,
                    cat.as_ptr(),
                    c"%s".as_ptr(),
                    msg.as_ptr(),
                );
            },
            Callback::Fmi3(callback) => unsafe {
                callback(self.environment, status, cat.as_ptr(), msg.as_ptr());
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logging_on_at_instantiate_leaves_the_call_trace_off() {
        let on = categories_at_instantiate(true);
        assert!(on[Category::Events as usize]);
        assert!(!on[Category::Calls as usize]);
        assert_eq!(categories_at_instantiate(false), [false; 6]);
        assert_eq!(LOG_CATEGORIES[Category::Calls as usize].0, "logCalls");
    }
}
