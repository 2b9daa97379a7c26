//! Signed entries in the shared tier, against the real S3-compatible server: a reader with
//! trusted keys takes only entries one of them signed; whoever can write the bucket can still
//! publish, but cannot make such a reader use what they published. A reader without trusted
//! keys behaves as before, and keeps a valid signature with the entry.

mod support;

use support::{S3Server, ServerOptions, manifest_for};
use tpuc_cache::{Envelope, Manifest, Payload, SecretKey, TrustedKeys, sha256};
use tpuc_remote::{Fetched, RemoteStore, SharedTier};

struct Bucket {
    server: S3Server,
    url: String,
}

impl Bucket {
    fn new() -> Bucket {
        let server = S3Server::start();
        let url = server.bucket("signed", "s");
        Bucket { server, url }
    }

    fn tier(&self, trusted: &[&SecretKey]) -> SharedTier {
        let keys = TrustedKeys::new(trusted.iter().map(|key| key.public_key()));
        SharedTier::new(RemoteStore::open(&self.url, &self.server.options()).unwrap())
            .trusting(keys)
    }

    /// The file behind object `key` (relative to the prefix).
    fn object(&self, key: &str) -> std::path::PathBuf {
        self.server.objects().join("signed/s").join(key)
    }

    fn overwrite(&self, key: &str, bytes: &[u8]) {
        let path = self.object(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

fn manifest_object(manifest: &Manifest) -> String {
    format!("v1/entries/{}.json", manifest.key)
}

fn signature_object(manifest: &Manifest, bytes: &[u8]) -> String {
    format!("v1/signatures/{}/{}.json", manifest.key, sha256(bytes))
}

fn rejection(tier: &SharedTier, manifest: &Manifest) -> String {
    match tier.fetch(&manifest.key).unwrap() {
        Fetched::Rejected { reason } => reason,
        other => panic!("expected a rejection, got {other:?}"),
    }
}

fn hit(tier: &SharedTier, manifest: &Manifest) -> (Envelope, Vec<u8>) {
    match tier.fetch(&manifest.key).unwrap() {
        Fetched::Hit { envelope, payload } => (*envelope, payload.to_vec()),
        other => panic!("expected a hit, got {other:?}"),
    }
}

#[test]
fn a_signed_entry_is_fetched_with_its_signature_by_those_who_trust_its_key() {
    tpuc_expect::skip_without!(S3Server);
    let bucket = Bucket::new();
    let publisher = SecretKey::generate().unwrap();
    let executable = b"signed executable".to_vec();
    let signed = Envelope::signed(manifest_for(&executable, "cpu:1"), &publisher);
    bucket.tier(&[]).publish(&signed, &executable).unwrap();

    let (envelope, payload) = hit(&bucket.tier(&[&publisher]), &signed.manifest);
    assert_eq!((envelope.clone(), payload), (signed.clone(), executable));
    // Without trusted keys the entry is used as before, and its signature kept with it.
    assert_eq!(hit(&bucket.tier(&[]), &signed.manifest).0, envelope);

    let other = SecretKey::generate().unwrap();
    let reason = rejection(&bucket.tier(&[&other]), &signed.manifest);
    assert!(reason.contains("not a trusted key"), "{reason}");
}

#[test]
fn unsigned_entries_are_rejected_by_a_reader_with_trusted_keys_only() {
    tpuc_expect::skip_without!(S3Server);
    let bucket = Bucket::new();
    let executable = b"unsigned executable".to_vec();
    let manifest = manifest_for(&executable, "cpu:1");
    bucket
        .tier(&[])
        .publish(&Envelope::new(manifest.clone()), &executable)
        .unwrap();
    let publisher = SecretKey::generate().unwrap();
    let reason = rejection(&bucket.tier(&[&publisher]), &manifest);
    assert_eq!(reason, "it is not signed");
    let (envelope, _) = hit(&bucket.tier(&[]), &manifest);
    assert_eq!(envelope.signature, None);
}

/// The poisoning of issue 11: model A's manifest keeps A's key (and key parts) but names model
/// B's executable, which is in the bucket and intact. Signed or not, a reader with trusted keys
/// rejects it; a reader without gets B's executable, as it always did.
#[test]
fn a_manifest_naming_another_entrys_executable_is_rejected_signed_or_not() {
    tpuc_expect::skip_without!(S3Server);
    let bucket = Bucket::new();
    let publisher = SecretKey::generate().unwrap();
    let (exe_a, exe_b) = (b"executable of A".to_vec(), b"executable of B!".to_vec());
    let a = Envelope::signed(manifest_for(&exe_a, "cpu:1"), &publisher);
    let b = Envelope::signed(manifest_for(&exe_b, "cpu:2"), &publisher);
    let writer = bucket.tier(&[]);
    writer.publish(&a, &exe_a).unwrap();
    writer.publish(&b, &exe_b).unwrap();
    let trusting = bucket.tier(&[&publisher]);

    let poisoned = Manifest {
        payload: Payload::of(&exe_b),
        ..a.manifest.clone()
    };
    let poisoned_bytes = Envelope::new(poisoned.clone()).bytes;
    bucket.overwrite(&manifest_object(&a.manifest), &poisoned_bytes);
    // Unsigned: no signature is stored under the poisoned manifest's digest.
    assert_eq!(rejection(&trusting, &a.manifest), "it is not signed");
    let (used, payload) = hit(&bucket.tier(&[]), &a.manifest);
    assert_eq!((used.manifest, payload), (poisoned.clone(), exe_b.clone()));

    // With A's genuine signature put where the poisoned manifest's would be.
    let genuine = a.signature.as_ref().unwrap().to_bytes();
    bucket.overwrite(&signature_object(&poisoned, &poisoned_bytes), &genuine);
    let reason = rejection(&trusting, &a.manifest);
    assert!(reason.contains("does not match the manifest"), "{reason}");

    // Signed by the attacker's own key.
    let attacker = SecretKey::generate().unwrap();
    let forged = Envelope::signed(poisoned.clone(), &attacker);
    bucket.overwrite(
        &signature_object(&poisoned, &poisoned_bytes),
        &forged.signature.unwrap().to_bytes(),
    );
    let reason = rejection(&trusting, &a.manifest);
    assert!(reason.contains("not a trusted key"), "{reason}");

    // B's whole signed entry (manifest and signature) republished under A's key.
    bucket.overwrite(&manifest_object(&a.manifest), &b.bytes);
    bucket.overwrite(
        &signature_object(&b.manifest, &b.bytes),
        &b.signature.as_ref().unwrap().to_bytes(),
    );
    let reason = rejection(&trusting, &a.manifest);
    assert!(reason.contains("does not belong"), "{reason}");

    // Restored, A is used again.
    bucket.overwrite(&manifest_object(&a.manifest), &a.bytes);
    assert_eq!(hit(&trusting, &a.manifest), (a, exe_a));
}

#[test]
fn a_damaged_or_oversized_signature_is_rejected_with_trust_and_dropped_without() {
    tpuc_expect::skip_without!(S3Server);
    let bucket = Bucket::new();
    let publisher = SecretKey::generate().unwrap();
    let executable = b"executable".to_vec();
    let signed = Envelope::signed(manifest_for(&executable, "cpu:1"), &publisher);
    bucket.tier(&[]).publish(&signed, &executable).unwrap();
    let object = signature_object(&signed.manifest, &signed.bytes);
    let mut damaged = signed.signature.as_ref().unwrap().to_bytes();
    let last_digit = damaged.len() - 4;
    damaged[last_digit] ^= 1;
    for (what, bytes) in [("damaged", damaged), ("oversized", vec![b' '; 64 * 1024])] {
        bucket.overwrite(&object, &bytes);
        let reason = rejection(&bucket.tier(&[&publisher]), &signed.manifest);
        assert!(!reason.is_empty(), "{what}");
        let (envelope, _) = hit(&bucket.tier(&[]), &signed.manifest);
        assert_eq!(envelope.signature, None, "{what}");
    }
}
