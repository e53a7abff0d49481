//! XSpace building (interning, stat typing) and writing (layout, atomic write).
