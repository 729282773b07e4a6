//! Folders of parts: the data files a folder stands for, as Spark, Hive and
//! Hadoop write and read them (part files in name order, `_` and `.` names
//! left out, links to folders followed, loops refused).

use anyhow::{bail, Context};
use std::io;
use std::path::{Path, PathBuf};

/// The files a named input stands for: a folder's data files
/// ([`folder_files`]), else the input itself (`-` included).
pub fn input_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if path.as_os_str() != "-" && path.is_dir() {
        folder_files(path)
    } else {
        Ok(vec![path.to_path_buf()])
    }
}

/// The data files of a folder, as Spark and Hadoop write and read them:
/// by name (`part-00000-...` before `part-00001-...`, so in the order of
/// the rows), subfolders such as Hive's `year=2024/` in name order too,
/// leaving out names starting with `_` or `.` (`_SUCCESS`, `_committed_*`,
/// `.part-00000....crc` checksums). A link to a folder is followed, as
/// Hadoop's local file system follows it, unless it leads back to a folder
/// it is inside (a loop, refused naming the link). A Delta table's folder is refused: it
/// keeps the files of replaced versions beside the live ones, and only its
/// `_delta_log` says which are which. A folder without data files is an
/// error, which is likelier a wrong name than an empty dataset.
pub fn folder_files(folder: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let name = folder.display();
    if folder.join("_delta_log").is_dir() {
        bail!(
            "{name} is a Delta table: its folder also holds files of replaced versions, and \
             only its _delta_log says which are live; write the table out as plain Parquet \
             (e.g. Spark's df.write.parquet) and read that"
        );
    }
    let mut files = Vec::new();
    let mut inside = Vec::from_iter(std::fs::metadata(folder).ok().as_ref().and_then(file_id));
    collect_data_files(folder, &mut inside, &mut files)
        .with_context(|| format!("cannot list {name}"))?;
    if files.is_empty() {
        bail!(
            "{name} is a folder with no data files in it (names starting with _ or . are not data)"
        );
    }
    Ok(files)
}

/// Adds the data files under `folder` to `files`; `inside` holds the
/// folders the walk is in (device and inode), to tell a loop.
pub(crate) fn collect_data_files(
    folder: &Path,
    inside: &mut Vec<(u64, u64)>,
    files: &mut Vec<PathBuf>,
) -> anyhow::Result<()> {
    let mut entries = std::fs::read_dir(folder)
        .with_context(|| format!("cannot list {}", folder.display()))?
        .collect::<io::Result<Vec<_>>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name
            .as_encoded_bytes()
            .first()
            .is_some_and(|b| matches!(b, b'_' | b'.'))
        {
            continue;
        }
        let path = entry.path();
        // (A link is followed: `is_dir` of the path, not of the entry.)
        if !path.is_dir() {
            files.push(path);
            continue;
        }
        let id = std::fs::metadata(&path).ok().as_ref().and_then(file_id);
        if id.is_some_and(|id| inside.contains(&id)) {
            bail!(
                "{} leads back to a folder it is in (a loop of links); remove the link \
                 or name the folders to read",
                path.display()
            );
        }
        inside.extend(id);
        collect_data_files(&path, inside, files)?;
        if id.is_some() {
            inside.pop();
        }
    }
    Ok(())
}

/// Device and inode of a file.
pub fn file_id(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}
