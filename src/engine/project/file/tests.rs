//! Reading and editing `hcp.yaml`: every edit is read back.

use super::*;
