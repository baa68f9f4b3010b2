//! `ast_edit` driven through a real session over real source trees in
//! temporary directories: preview, then `resolve` apply or discard.

mod apply_safety;
mod confinement;
mod flow;
mod languages;
mod limits;
mod special_files;
mod support;
