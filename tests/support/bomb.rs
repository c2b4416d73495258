//! Zip bombs built in code: a small zip whose one entry decompresses to
//! many MiB of spaces (deflate packs them about 1000:1, so 300 MiB take
//! about 300 KB).

use std::io::Write;

/// A zip holding `name` with `mib` MiB of spaces, deflated.
pub fn zip_bomb(name: &str, mib: usize) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut zip = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(false);
    zip.start_file(name, options).unwrap();
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..mib {
        zip.write_all(&chunk).unwrap();
    }
    zip.finish().unwrap();
    out.into_inner()
}
