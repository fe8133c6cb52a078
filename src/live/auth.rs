//! The live protocol's cryptography, all of it HMAC-SHA256 (RFC 2104 over the `sha2` crate
//! blox already uses): keys derived from the shared token, the handshake's proofs, and the
//! per-message seal that gives every message after the handshake integrity, order and freshness.
//! `docs/live-protocol.md` ("Handshake", "Sealed messages") is the specification.

use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Read;
use std::sync::OnceLock;

/// A 256-bit key: an agent's key, a job attempt's credential, or a session key.
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; 32]);

/// Never printed: a key in a log would be a leaked key.
impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// The key an agent proves itself with, derived from the token so that nothing else derived
    /// from it (a job credential) can stand in for it.
    pub fn agent(token: &str) -> Key {
        Key(hmac(token.as_bytes(), &[b"blox-live-2 agent"]))
    }

    /// The credential of one job attempt of one run: the only key its process gets, good for
    /// saying hello as that attempt and nothing else. The agent derives it from the token for
    /// the job's environment; the scheduler derives it again from the job's hello.
    pub fn job(token: &str, job: u64, attempt: u32, run: Option<&str>) -> Key {
        let what = format!("blox-live-2 job\n{job}\n{attempt}\n{}", run.unwrap_or(""));
        Key(hmac(token.as_bytes(), &[what.as_bytes()]))
    }

    /// The key in lowercase hexadecimal, as jobs get it (`BLOX_JOB_CREDENTIAL`).
    pub fn to_hex(&self) -> String {
        hex(&self.0)
    }

    /// A key written as 64 hexadecimal digits.
    pub fn from_hex(text: &str) -> Option<Key> {
        decode_hex(text)?.try_into().ok().map(Key)
    }

    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        hmac(&self.0, parts)
    }
}

/// HMAC-SHA256 of the concatenation of `parts` (RFC 2104).
pub fn hmac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut block = [0u8; 64];
    if key.len() > block.len() {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(block.map(|b| b ^ 0x36));
    parts.iter().for_each(|part| inner.update(part));
    let mut outer = Sha256::new();
    outer.update(block.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

/// Compares in time independent of where the inputs differ, so that timing reveals no correct
/// prefix of a proof or a seal.
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

/// 32 unpredictable bytes from the system (`/dev/urandom`, opened once so that a process at its
/// descriptor limit can still make them).
pub fn nonce() -> Result<[u8; 32], String> {
    static URANDOM: OnceLock<Result<File, String>> = OnceLock::new();
    let file = URANDOM
        .get_or_init(|| File::open("/dev/urandom").map_err(|e| format!("cannot open /dev/urandom: {e}")))
        .as_ref()
        .map_err(Clone::clone)?;
    let mut bytes = [0u8; 32];
    (&*file).read_exact(&mut bytes).map_err(|e| format!("cannot read /dev/urandom: {e}"))?;
    Ok(bytes)
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// What both sides of a handshake agree on: the two nonces and the digest of the hello line as
/// sent, so that the proofs and the session key bind every claim the hello made.
pub struct Transcript {
    pub client_nonce: [u8; 32],
    pub server_nonce: [u8; 32],
    pub hello_digest: [u8; 32],
}

impl Transcript {
    pub fn new(client_nonce: [u8; 32], server_nonce: [u8; 32], hello_line: &[u8]) -> Transcript {
        Transcript { client_nonce, server_nonce, hello_digest: Sha256::digest(hello_line).into() }
    }

    fn mac(&self, key: &Key, label: &[u8]) -> [u8; 32] {
        key.mac(&[label, &self.client_nonce, &self.server_nonce, &self.hello_digest])
    }

    /// The scheduler's proof that it holds `key` (sent first, so that a client reveals nothing
    /// to a peer that cannot make it).
    pub fn scheduler_proof(&self, key: &Key) -> [u8; 32] {
        self.mac(key, b"blox-live-2 scheduler proof\0")
    }

    /// The client's proof that it holds `key`.
    pub fn client_proof(&self, key: &Key) -> [u8; 32] {
        self.mac(key, b"blox-live-2 client proof\0")
    }

    /// The key sealing the connection's messages: fresh for every connection.
    pub fn session_key(&self, key: &Key) -> Key {
        Key(self.mac(key, b"blox-live-2 session\0"))
    }
}

/// Which way a sealed message travels: part of its MAC, so that a message cannot be reflected
/// back to its sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    ToScheduler,
    FromScheduler,
}

impl Direction {
    fn label(self) -> &'static [u8] {
        match self {
            Direction::ToScheduler => b"blox-live-2 to scheduler\0",
            Direction::FromScheduler => b"blox-live-2 from scheduler\0",
        }
    }
}

/// One direction of a session: seals (or opens) its messages in order. A sealed line is
/// `<64 hex digits of HMAC(session key, direction, sequence number, json)> <json>`; the sequence
/// number counts the direction's messages from 0 and is not sent, so a message forged, changed,
/// replayed, dropped or reordered fails to open.
#[derive(Debug)]
pub struct Seal {
    key: Key,
    direction: Direction,
    next: u64,
}

/// Why a sealed line did not open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forged;

impl Seal {
    pub fn new(key: Key, direction: Direction) -> Seal {
        Seal { key, direction, next: 0 }
    }

    fn mac(&self, json: &[u8]) -> [u8; 32] {
        self.key.mac(&[self.direction.label(), &self.next.to_be_bytes(), json])
    }

    /// `json` as a sealed line (without its `\n`).
    pub fn seal(&mut self, json: &[u8]) -> Vec<u8> {
        let mut line = hex(&self.mac(json)).into_bytes();
        line.push(b' ');
        line.extend_from_slice(json);
        self.next += 1;
        line
    }

    /// The JSON of a sealed line, if it is the next message of this direction.
    pub fn open<'a>(&mut self, line: &'a [u8]) -> Result<&'a [u8], Forged> {
        let (mac, json) = match line.iter().position(|&b| b == b' ') {
            Some(64) => (&line[..64], &line[65..]),
            _ => return Err(Forged),
        };
        let expected = hex(&self.mac(json));
        if !same_bytes(mac, expected.as_bytes()) {
            return Err(Forged);
        }
        self.next += 1;
        Ok(json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231's test cases 1, 2 and 6 (a key longer than the block).
    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        assert_eq!(
            hex(&hmac(&[0x0b; 20], &[b"Hi There"])),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(&hmac(b"Jefe", &[b"what do ya want ", b"for nothing?"])),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex(&hmac(&[0xaa; 131], &[b"Test Using Larger Than Block-Size Key - Hash Key First"])),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn keys_are_separated_by_role_attempt_and_run() {
        let token = "0123456789abcdef-token";
        let agent = Key::agent(token);
        let job = Key::job(token, 1, 0, Some("r"));
        assert_ne!(agent, job);
        assert_ne!(job, Key::job(token, 1, 1, Some("r")));
        assert_ne!(job, Key::job(token, 10, 0, Some("r")));
        assert_ne!(job, Key::job(token, 1, 0, None));
        assert_ne!(job, Key::job("0123456789abcdef-tokeN", 1, 0, Some("r")));
        assert_eq!(Key::from_hex(&job.to_hex()), Some(job));
        assert_eq!(Key::from_hex("abc"), None);
        assert_eq!(Key::from_hex(&"zz".repeat(32)), None);
        assert_eq!(format!("{agent:?}"), "Key(..)");
    }

    #[test]
    fn a_sealed_line_opens_once_in_order_and_only_unchanged() {
        let key = Key::agent("0123456789abcdef-token");
        let mut sender = Seal::new(key.clone(), Direction::FromScheduler);
        let mut receiver = Seal::new(key.clone(), Direction::FromScheduler);
        let first = sender.seal(br#"{"type":"welcome"}"#);
        let second = sender.seal(br#"{"type":"heartbeat"}"#);
        // Out of order.
        assert_eq!(receiver.open(&second), Err(Forged));
        assert_eq!(receiver.open(&first), Ok(&br#"{"type":"welcome"}"#[..]));
        // Replayed.
        assert_eq!(receiver.open(&first), Err(Forged));
        // Changed.
        let mut changed = second.clone();
        *changed.last_mut().unwrap() = b' ';
        assert_eq!(receiver.open(&changed), Err(Forged));
        assert_eq!(receiver.open(&second), Ok(&br#"{"type":"heartbeat"}"#[..]));
        // Reflected: a line sealed for the other direction.
        let mut reflected = Seal::new(key.clone(), Direction::ToScheduler);
        let mut fresh = Seal::new(key, Direction::FromScheduler);
        assert_eq!(fresh.open(&reflected.seal(br#"{"type":"welcome"}"#)), Err(Forged));
        assert_eq!(fresh.open(br#"{"type":"welcome"}"#), Err(Forged));
    }

    #[test]
    fn nonces_differ() {
        assert_ne!(nonce().unwrap(), nonce().unwrap());
    }
}
