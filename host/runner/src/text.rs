//! How the arena writes numbers and names in its outputs: CSV fields,
//! points, places and counts. The lowest layer of this crate: grading,
//! tournaments, reports and terminal play all write them the same way.

/// One CSV text field, quoted when it must be (RFC 4180). Names, file
/// names and reasons come from students: one that starts like a formula
/// (`=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, so
/// a spreadsheet opening the file shows it instead of running it (OWASP's
/// advice on CSV injection). Numbers are written without this function.
pub fn csv_field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// Points as the reports print them: `10`, `7.5`.
pub fn points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p}")
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, ... `11th`, `21st` (finishing places, class ranks).
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `n` with a comma between thousands, as a reader counts: 3,000.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share as a percentage, small ones with three decimals.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p > 0.0 && p < 0.001 {
        return "<0.001%".to_string();
    }
    let decimals = if p >= 10.0 {
        0
    } else if p >= 1.0 {
        1
    } else {
        3
    };
    format!("{p:.decimals$}%")
}
