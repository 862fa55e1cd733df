//! [`InPlace`]: an object type whose selected fields are resolved one after another, each
//! awaited where it stands, instead of as one boxed future per field.
//!
//! async-graphql resolves an object (`resolve_container_serial`, what `#[graphql(serial)]`
//! derives) by boxing a future for every selected field, collecting them in a vector, then
//! awaiting them in order and merging each value into a map that grows from empty. A
//! container of the `/v2`-like page has about fifty fields and its shipment forty, so a
//! page of 30 containers boxed about 2,400 futures; each box copied the whole state of the
//! type's `resolve_field` (the size of its largest resolver), and the merge hashed every
//! response key twice. That machinery was about a quarter of the GraphQL page's
//! instructions (docs/NOTES.md, forty-first session).
//!
//! [`InPlace`] serves the same GraphQL type (name, fields, introspection are `T`'s) and
//! answers the same value and errors: the fields of the selection are collected in the
//! order async-graphql collects them (fragments spread in place, those on another type
//! left out), each is resolved by `T`'s own `resolve_field`, a field's error is added to
//! the response and its key left out, and a response key given twice is merged as
//! async-graphql merges it. A selection it does not take on, a field carrying a directive
//! that is still in the document (a custom one, or `@include(if: true)`), falls back to
//! `resolve_container_serial` whole. Like [`super::TransportEvents`]' shortcut, it
//! does not call per-field extension hooks; teu's schema registers no extension (automatic
//! persisted queries are handled before execution, see [`crate::persisted`]).
//!
//! Where no field merge can look into the object (its selection names each response key
//! once, and no other field of the document has the response key it stands under,
//! [`only_field_with_key`]), it is answered as its JSON text instead of an object of values
//! ([`text_object`]): its plain fields written by the object itself
//! ([`super::text::PlainFields`]), the others resolved as above and their values written.

use std::any::TypeId;
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;

use async_graphql::indexmap::map::Entry;
use async_graphql::indexmap::IndexMap;
use async_graphql::parser::types::{Field, Selection, SelectionSet};
use async_graphql::resolver_utils::{resolve_container_serial, ContainerType};
use async_graphql::{
    registry, ContextSelectionSet, Name, OutputType, Positioned, ServerResult, Value,
};
use teu_domain::json::push_str;

use super::text::PlainFields;

/// The object `T` (a `SimpleObject` or `Object`, not an interface or union), served as the
/// GraphQL type `T` with its fields resolved in place (module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct InPlace<T>(pub T);

impl<T: ContainerType + PlainFields + 'static> OutputType for InPlace<T> {
    fn type_name() -> Cow<'static, str> {
        T::type_name()
    }

    fn qualified_type_name() -> String {
        T::qualified_type_name()
    }

    fn introspection_type_name(&self) -> Cow<'static, str> {
        self.0.introspection_type_name()
    }

    fn create_type_info(registry: &mut registry::Registry) -> String {
        T::create_type_info(registry)
    }

    async fn resolve(
        &self,
        ctx: &ContextSelectionSet<'_>,
        field: &Positioned<Field>,
    ) -> ServerResult<Value> {
        // One box per object (async-graphql boxes one per field): it breaks the cycle of
        // types between objects that nest each other (a container's shipment, a shipment's
        // containers).
        let resolve: Pin<Box<dyn Future<Output = ServerResult<Value>> + Send + '_>> =
            Box::pin(resolve_in_place(ctx, &self.0, field));
        resolve.await
    }
}

/// The response value of object `root` for the selection of `ctx`, the value of `field`: its
/// fields resolved one after another by `root.resolve_field`, as `resolve_container_serial`
/// resolves them. Written as JSON text ([`text_object`]) when the selection names each
/// response key once and no other field of the document has `field`'s response key (so no
/// merge can look into the text, [`only_field_with_key`]); else an object of values.
async fn resolve_in_place<'a, T: ContainerType + PlainFields + 'static>(
    ctx: &ContextSelectionSet<'a>,
    root: &'a T,
    field: &Positioned<Field>,
) -> ServerResult<Value> {
    #[cfg(test)]
    if ctx.data_opt::<Plainly>().is_some() {
        return resolve_container_serial(ctx, root).await;
    }
    let mut fields = Vec::with_capacity(ctx.item.node.items.len());
    if collect::<T>(ctx, &ctx.item.node, &mut fields).is_none() {
        return resolve_container_serial(ctx, root).await;
    }
    if only_field_with_key(ctx, field) {
        if let Some(keys) = key_texts::<T>(ctx, &fields) {
            return Ok(text_object(ctx, root, &fields, &keys).await);
        }
    }
    // An object of values, merged key by key as async-graphql merges them: a field that
    // fails has its error added and its key left out.
    let mut results: IndexMap<Name, Value> = IndexMap::with_capacity(fields.len());
    for (set, field) in &fields {
        let value = if field.node.name.node == "__typename" {
            Value::String(root.introspection_type_name().into_owned())
        } else {
            match root.resolve_field(&set.with_field(field)).await {
                Ok(value) => value.unwrap_or_default(),
                Err(error) => {
                    ctx.add_error(error);
                    continue;
                }
            }
        };
        insert(&mut results, field.node.response_key().node.clone(), value);
    }
    Ok(if results.is_empty() {
        Value::Null
    } else {
        Value::Object(results)
    })
}

/// The object of `fields` (each response key once, written as `keys`, [`key_texts`]) as JSON
/// text ([`crate::response::raw_json`]): the bytes serde_json writes for the object of values
/// the fields resolve to, made without it. A plain field the object writes itself
/// ([`PlainFields`]) goes straight into the text; any other is resolved by
/// `root.resolve_field` and its value written ([`crate::response::write_value`]). A field that
/// fails has its error added and its key left out; `null` when every field failed, as
/// async-graphql answers. Writing the page's objects as text spares making, copying and
/// dropping a value per field and an `IndexMap` per object (docs/NOTES.md, sixty-first
/// session).
async fn text_object<'a, T: ContainerType + PlainFields>(
    ctx: &ContextSelectionSet<'a>,
    root: &'a T,
    fields: &[(ContextSelectionSet<'a>, &'a Positioned<Field>)],
    keys: &[Box<[u8]>],
) -> Value {
    let mut out = Vec::with_capacity(64 * fields.len());
    for ((set, field), key) in fields.iter().zip(keys) {
        let start = out.len();
        out.push(if start == 0 { b'{' } else { b',' });
        out.extend_from_slice(key);
        let name = field.node.name.node.as_str();
        if name == "__typename" {
            push_str(&mut out, &root.introspection_type_name());
        } else if !(field.node.arguments.is_empty() && root.write_field(name, &mut out)) {
            match root.resolve_field(&set.with_field(field)).await {
                Ok(value) => crate::response::write_value(&mut out, &value.unwrap_or_default()),
                Err(error) => {
                    ctx.add_error(error);
                    out.truncate(start);
                }
            }
        }
    }
    if out.is_empty() {
        return Value::Null;
    }
    out.push(b'}');
    // Always UTF-8: keys and strings are copied from `&str`, everything else is ASCII.
    match String::from_utf8(out) {
        Ok(text) => crate::response::raw_json(text),
        Err(_) => Value::Null,
    }
}

/// The response keys of `fields` (the collected selection of `ctx` on `T`) each written as
/// JSON, `"key":`, when the selection names each key once; `None` when it names one twice
/// (the fields then merge, [`insert`]). Kept in the request's [`KeysCounted`] by the selection
/// set's address and place (the request's document does not move while it runs, and which
/// fields a set collects on a type depends on nothing else): a page asks once per
/// container, and escaping every key of every object again was 6.5% of the GraphQL page's
/// instructions (docs/NOTES.md, sixty-first session).
fn key_texts<T: 'static>(
    ctx: &ContextSelectionSet<'_>,
    fields: &[(ContextSelectionSet<'_>, &Positioned<Field>)],
) -> Option<KeyTexts> {
    let at = (
        std::ptr::from_ref(ctx.item).addr(),
        ctx.item.pos,
        TypeId::of::<T>(),
    );
    let counted = ctx.data_opt::<KeysCounted>();
    if let Some(texts) = counted.and_then(|c| c.selection(at)) {
        return texts;
    }
    let key = |i: usize| &fields[i].1.node.response_key().node;
    let once = (0..fields.len()).all(|i| (0..i).all(|j| key(i) != key(j)));
    let texts: Option<KeyTexts> = once.then(|| {
        (0..fields.len())
            .map(|i| {
                let mut text = Vec::with_capacity(key(i).len() + 3);
                push_str(&mut text, key(i));
                text.push(b':');
                text.into_boxed_slice()
            })
            .collect()
    });
    if let Some(counted) = counted {
        counted.put_selection(at, texts.clone());
    }
    texts
}

/// Request data of the tests: objects served by [`InPlace`] are resolved by async-graphql's
/// `resolve_container_serial` alone, the answer the in-place and text answers are compared
/// with.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct Plainly;

/// Appends to `fields` the fields of `set` in the order async-graphql's `Fields::add_set`
/// visits them, each with the selection set it is written in: fragments (named or inline)
/// with no type condition or one `T` meets (its name or an interface it implements) are
/// spread in place, others left out. `None` when a field carries a directive (the caller
/// then resolves the object as async-graphql does) or a named fragment is unknown.
fn collect<'a, T: ContainerType>(
    ctx: &ContextSelectionSet<'a>,
    set: &'a SelectionSet,
    fields: &mut Vec<(ContextSelectionSet<'a>, &'a Positioned<Field>)>,
) -> Option<()> {
    for selection in &set.items {
        let (on, inner) = match &selection.node {
            Selection::Field(field) => {
                if !field.node.directives.is_empty() {
                    return None;
                }
                fields.push((ctx.clone(), field));
                continue;
            }
            Selection::FragmentSpread(spread) => {
                let fragment = ctx
                    .query_env
                    .fragments
                    .get(&spread.node.fragment_name.node)?;
                (
                    Some(&fragment.node.type_condition),
                    &fragment.node.selection_set,
                )
            }
            Selection::InlineFragment(fragment) => (
                fragment.node.type_condition.as_ref(),
                &fragment.node.selection_set,
            ),
        };
        let applies = on.is_none_or(|condition| {
            let condition = condition.node.on.node.as_str();
            let name = T::type_name();
            name == condition
                || ctx
                    .schema_env
                    .registry
                    .implements
                    .get(name.as_ref())
                    .is_some_and(|interfaces| interfaces.contains(condition))
        });
        if applies {
            collect::<T>(&ctx.with_selection_set(inner), &inner.node, fields)?;
        }
    }
    Some(())
}

/// Whether `field` is the only field of the request's document (its operation and every
/// fragment definition) with its response key. Then no object's selection can hold two
/// different fields under that key, so its value is never merged with another selection's
/// (GraphQL field merging, which [`insert`] and async-graphql do key by key, item by item):
/// at most with a copy of itself, from the same fragment spread twice, and merging keeps the
/// first of two equal values. A value that is JSON text ([`crate::response::raw_json`],
/// which merging cannot look into) is safe only then.
///
/// The answer for a key is kept in the request's [`KeysCounted`] when it has one: a page asks
/// once per container, and walking its document each time was 1.2% of its instructions
/// (5.52 → 5.45 M, docs/NOTES.md).
pub(super) fn only_field_with_key(
    ctx: &ContextSelectionSet<'_>,
    field: &Positioned<Field>,
) -> bool {
    let key = &field.node.response_key().node;
    let counted = ctx.data_opt::<KeysCounted>();
    if let Some(once) = counted.and_then(|c| c.get(key)) {
        return once;
    }
    let mut seen = 0usize;
    count_key(
        &ctx.query_env.operation.node.selection_set.node,
        key,
        &mut seen,
    );
    for fragment in ctx.query_env.fragments.values() {
        count_key(&fragment.node.selection_set.node, key, &mut seen);
    }
    let once = seen == 1;
    if let Some(counted) = counted {
        counted.put(key, once);
    }
    once
}

/// The answers of [`only_field_with_key`] (by response key) and of [`key_texts`] (by
/// selection set and type) for one request, whose document does not change: request data
/// that [`crate::TeuSchema`] gives every request.
#[derive(Debug, Default)]
pub struct KeysCounted {
    keys: std::sync::Mutex<Vec<(Name, bool)>>,
    selections: std::sync::Mutex<Vec<(Selected, Option<KeyTexts>)>>,
}

/// A selection set of the request's document (its address, and its place in the document's
/// text, so that no other set could be taken for it) as selected on a type.
type Selected = (usize, async_graphql::Pos, TypeId);

/// The response keys of a selection written as JSON, `"key":`, in the selection's order.
type KeyTexts = std::sync::Arc<[Box<[u8]>]>;

impl KeysCounted {
    fn get(&self, key: &Name) -> Option<bool> {
        let counted = self.keys.lock().ok()?;
        counted
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, once)| *once)
    }

    fn put(&self, key: &Name, once: bool) {
        if let Ok(mut counted) = self.keys.lock() {
            counted.push((key.clone(), once));
        }
    }

    fn selection(&self, at: Selected) -> Option<Option<KeyTexts>> {
        let counted = self.selections.lock().ok()?;
        counted
            .iter()
            .find(|(s, _)| *s == at)
            .map(|(_, texts)| texts.clone())
    }

    fn put_selection(&self, at: Selected, texts: Option<KeyTexts>) {
        if let Ok(mut counted) = self.selections.lock() {
            counted.push((at, texts));
        }
    }
}

/// Adds to `seen` the fields of `set` and of the selections nested in it (fields' and inline
/// fragments'; named fragments are counted at their definitions) whose response key is `key`.
fn count_key(set: &SelectionSet, key: &str, seen: &mut usize) {
    for selection in &set.items {
        match &selection.node {
            Selection::Field(f) => {
                if f.node.response_key().node.as_str() == key {
                    *seen += 1;
                }
                count_key(&f.node.selection_set.node, key, seen);
            }
            Selection::InlineFragment(fragment) => {
                count_key(&fragment.node.selection_set.node, key, seen)
            }
            Selection::FragmentSpread(_) => {}
        }
    }
}

/// Puts `value` under `key`, merging as async-graphql does when the key is there already
/// (GraphQL field merging: validation has made sure both are the same field): objects
/// merge key by key, lists item by item, any other value stays the first one.
fn insert(target: &mut IndexMap<Name, Value>, key: Name, value: Value) {
    match target.entry(key) {
        Entry::Vacant(entry) => {
            entry.insert(value);
        }
        Entry::Occupied(mut entry) => merge(entry.get_mut(), value),
    }
}

fn merge(target: &mut Value, value: Value) {
    match (target, value) {
        (Value::Object(target), Value::Object(object)) => {
            for (key, value) in object {
                insert(target, key, value);
            }
        }
        (Value::List(target), Value::List(list)) => {
            for (item, value) in target.iter_mut().zip(list) {
                if let (Value::Object(target), Value::Object(object)) = (item, value) {
                    for (key, value) in object {
                        insert(target, key, value);
                    }
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    //! [`InPlace`] against async-graphql's own resolution of the same object: a small schema
    //! serves one object both ways, under two root fields of the same length (`plainThing`,
    //! `placeThing`) so that every error's location is the same, and every selection below
    //! must answer the same JSON (data and errors, their paths and locations included).

    use async_graphql::{
        ComplexObject, EmptyMutation, EmptySubscription, Interface, Object, Schema, SimpleObject,
    };
    use serde_json::Value as Json;

    use super::InPlace;

    #[derive(SimpleObject, Clone)]
    #[graphql(complex, serial)]
    struct Thing {
        id: i32,
        name: String,
        tags: Vec<String>,
    }

    // Its plain fields are written as text when `InPlace` writes the object as text.
    crate::types::text::plain_fields!(Thing {
        "id" => id,
        "name" => name,
        "tags" => tags,
    });

    #[ComplexObject]
    impl Thing {
        /// A nested object (resolved by async-graphql either way).
        async fn child(&self) -> Option<Thing> {
            (self.id < 3).then(|| thing(self.id + 1))
        }

        async fn children(&self) -> Vec<Thing> {
            vec![thing(self.id * 10), thing(self.id * 10 + 1)]
        }

        /// A non-null field that fails.
        async fn broken(&self) -> async_graphql::Result<i32> {
            Err("broken on purpose".into())
        }

        /// A nullable field that fails.
        async fn maybe(&self) -> async_graphql::Result<Option<i32>> {
            Err(format!("no value for {}", self.id).into())
        }

        /// A field that is not ready at its first poll.
        async fn later(&self) -> i32 {
            tokio::task::yield_now().await;
            self.id * 2
        }
    }

    #[derive(Interface)]
    #[graphql(field(name = "name", ty = "&String"))]
    #[allow(dead_code)]
    enum Named {
        Thing(Thing),
    }

    fn thing(id: i32) -> Thing {
        Thing {
            id,
            name: format!("thing {id}"),
            tags: vec!["a".into(), format!("t{id}")],
        }
    }

    struct Root;

    #[Object]
    impl Root {
        async fn plain_thing(&self) -> Thing {
            thing(1)
        }

        async fn place_thing(&self) -> InPlace<Thing> {
            InPlace(thing(1))
        }

        async fn plain_things(&self) -> Vec<Option<Thing>> {
            vec![Some(thing(1)), None, Some(thing(2))]
        }

        async fn place_things(&self) -> Vec<Option<InPlace<Thing>>> {
            vec![Some(InPlace(thing(1))), None, Some(InPlace(thing(2)))]
        }
    }

    /// The response's JSON text, keys in the order the response lists them.
    async fn answer_text(query: &str) -> String {
        let schema = Schema::build(Root, EmptyMutation, EmptySubscription)
            .register_output_type::<Named>()
            .finish();
        serde_json::to_string(&schema.execute(query).await).expect("a response is JSON")
    }

    async fn answer(query: &str) -> Json {
        serde_json::from_str(&answer_text(query).await).expect("a response is JSON")
    }

    /// Selections on `Thing`, each with the fragment definitions it spreads.
    const SELECTIONS: &[(&str, &str)] = &[
        ("{ id name tags }", ""),
        ("{ __typename id }", ""),
        ("{ a: id b: name id __typename t: __typename }", ""),
        (
            "{ child { id } child { name child { id } } child { child { name } } id id }",
            "",
        ),
        ("{ children { id } children { name } }", ""),
        (
            "{ ...F id }",
            "fragment F on Thing { name child { id ...G } } fragment G on Thing { tags }",
        ),
        (
            "{ ... { id } ... on Thing { name } ... on Named { name } id }",
            "",
        ),
        ("{ id broken name }", ""),
        ("{ maybe id maybe }", ""),
        (
            "{ child { broken maybe later } children { maybe id } later }",
            "",
        ),
        ("{ id @include(if: true) name @skip(if: true) later }", ""),
        ("{ ... on Thing @include(if: false) { id } name }", ""),
        ("{ later child { later } }", ""),
    ];

    #[tokio::test]
    async fn answers_what_async_graphql_answers() {
        for (selection, fragments) in SELECTIONS {
            for (plain, place) in [("plainThing", "placeThing"), ("plainThings", "placeThings")] {
                let query = |field: &str| format!("{{ x: {field} {selection} }} {fragments}");
                let expected = answer(&query(plain)).await;
                assert!(
                    expected.get("data").is_some_and(|d| !d.is_null()),
                    "{}: {expected}",
                    query(plain)
                );
                assert_eq!(answer(&query(place)).await, expected, "{}", query(place));
                // The same text, keys in the same order (objects written as text, or made
                // key by key where a key is named twice).
                assert_eq!(
                    answer_text(&query(place)).await,
                    answer_text(&query(plain)).await,
                    "{}",
                    query(place)
                );
            }
        }
    }

    #[tokio::test]
    async fn errors_keep_their_paths() {
        let answer = answer("{ x: placeThings { id broken } }").await;
        let paths: Vec<&Json> = answer["errors"]
            .as_array()
            .expect("errors")
            .iter()
            .map(|e| &e["path"])
            .collect();
        assert_eq!(
            paths,
            [
                &serde_json::json!(["x", 0, "broken"]),
                &serde_json::json!(["x", 2, "broken"])
            ]
        );
    }
}
