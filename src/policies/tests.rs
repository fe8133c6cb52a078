//! The registry's own consistency: spec enums and descriptors pair one to one, documented options
//! are the parsed ones and all reach the canonical form, engines agree with what gets built.

use super::*;
use serde::de::value::{MapAccessDeserializer, MapDeserializer};
use serde::de::{IntoDeserializer, Visitor};

/// A deserializer that records what a derived `Deserialize` asks for: an enum's variant names or
/// a struct's field names. The names come back as the error.
struct Shape;

#[derive(Debug)]
enum Asked {
    Names(&'static [&'static str]),
    Other(String),
}

impl fmt::Display for Asked {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Asked::Names(names) => write!(f, "asked for {}", names.join(", ")),
            Asked::Other(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Asked {}

impl de::Error for Asked {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Asked::Other(message.to_string())
    }
}

impl<'de> Deserializer<'de> for Shape {
    type Error = Asked;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Asked> {
        Err(Asked::Other("neither an enum nor a struct".into()))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &str,
        variants: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Asked> {
        Err(Asked::Names(variants))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Asked> {
        Err(Asked::Names(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map identifier ignored_any
    }
}

impl IntoDeserializer<'_, Asked> for Shape {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

fn asked<T>(result: Result<T, Asked>) -> &'static [&'static str] {
    match result {
        Err(Asked::Names(names)) => names,
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("parsed from nothing"),
    }
}

/// The names of `T`'s serde variants, in declaration order.
fn variant_names<T: Registered>() -> &'static [&'static str] {
    asked(T::deserialize_variant(Shape))
}

/// The fields of the options struct of `T`'s variant `name`.
fn option_fields<T: Registered>(name: &str) -> &'static [&'static str] {
    let entry = MapDeserializer::new(std::iter::once((name, Shape)));
    asked(T::deserialize_variant(MapAccessDeserializer::new(entry)))
}

fn parse<T: for<'de> Deserialize<'de>>(yaml: &str) -> Result<T, String> {
    serde_saphyr::from_str(yaml).map_err(|e| e.to_string())
}

/// Every variant of `T` has exactly one descriptor of its kind and every descriptor a variant,
/// under the same name and in the same order; each option a descriptor documents is a field of
/// its options, parses from its example and reaches the canonical form.
fn check_kind<T: Registered + for<'de> Deserialize<'de>>(
    info_of: fn(&T) -> &'static PolicyInfo,
    canonical_of: fn(&T) -> Value,
) {
    let names = T::KIND.names();
    assert_eq!(variant_names::<T>(), names.as_slice(), "{:?}: serde variants and descriptors differ", T::KIND);
    for info in T::KIND.policies() {
        let documented: Vec<&str> = info.options.iter().map(|o| o.name).collect();
        let mut fields = option_fields::<T>(info.name).to_vec();
        let mut sorted = documented.clone();
        fields.sort();
        sorted.sort();
        assert_eq!(fields, sorted, "`{}`: documented options differ from its Options' fields", info.name);
        let yaml = info.example();
        let spec: T = parse(&yaml).unwrap_or_else(|e| panic!("{yaml}: {e}"));
        assert_eq!(info_of(&spec).name, info.name, "{yaml}");
        let canonical = canonical_of(&spec);
        let params: Vec<&str> = match &canonical {
            Value::String(name) => {
                assert_eq!(name, info.name);
                Vec::new()
            }
            Value::Object(map) => map[info.name].as_object().unwrap().keys().map(String::as_str).collect(),
            other => panic!("{other}"),
        };
        assert_eq!(params, sorted, "`{}`: an option is missing from the canonical form", info.name);
    }
}

#[test]
fn spec_enums_and_descriptors_pair_one_to_one() {
    check_kind::<SchedulerSpec>(SchedulerSpec::info, SchedulerSpec::canonical);
    check_kind::<PlacementSpec>(PlacementSpec::info, PlacementSpec::canonical);
    check_kind::<AdmissionSpec>(AdmissionSpec::info, AdmissionSpec::canonical);
    check_kind::<OverheadSpec>(OverheadSpec::info, OverheadSpec::canonical);
    let mut seen = std::collections::HashSet::new();
    for info in ALL {
        assert!(seen.insert((info.kind, info.name)), "{} `{}` is listed twice", info.kind.noun(), info.name);
    }
}

#[test]
fn engines_agree_with_what_gets_built() {
    let cluster = crate::core::ClusterSpec::uniform(2, 4);
    let oracle = std::sync::Arc::new(crate::profiles::gavel::GavelThroughputs::default());
    let ctx = BuildContext {
        load: Some(1.0),
        base_dir: std::path::Path::new("."),
        round_seconds: 300.0,
        cluster: &cluster,
        seed: 0,
        gavel_oracle: Some(&oracle),
    };
    for info in Kind::Scheduler.policies() {
        let spec: SchedulerSpec = parse(&info.example()).unwrap();
        let events = info.engine == EngineMode::Events;
        let whole_decision = spec.build_decision(&ctx).is_some();
        assert_eq!(spec.build(&ctx).is_some() || whole_decision, !events, "{}", info.name);
        assert!(
            !(spec.build(&ctx).is_some() && whole_decision),
            "{}: an order or a whole decision, not both",
            info.name
        );
        assert_eq!(spec.build_event(None).is_some(), events, "{}", info.name);
        assert_eq!(
            info.placement.is_some(),
            events || whole_decision,
            "{}: event schedulers and whole-round decisions, and only they, bring a placement",
            info.name
        );
        for alternative in info.placement.iter().flat_map(|own| own.alternatives) {
            assert_eq!((alternative.kind, alternative.engine), (Kind::Placement, EngineMode::Events), "{}", info.name);
        }
    }
    for info in Kind::Placement.policies() {
        let spec: PlacementSpec = parse(&info.example()).unwrap();
        let events = info.engine == EngineMode::Events;
        assert_eq!(spec.build().is_some(), !events, "{}", info.name);
        assert_eq!(spec.event_placement().is_some(), events, "{}", info.name);
    }
    for info in ALL {
        if matches!(info.kind, Kind::Admission | Kind::Overhead) {
            assert_eq!(info.engine, EngineMode::Rounds, "{}: the event engine has no such slot", info.name);
        }
    }
}

#[test]
fn canonical_forms_are_the_name_and_its_sorted_options() {
    let canonical = |yaml: &str| parse::<SchedulerSpec>(yaml).unwrap().canonical().to_string();
    // Run keys and the runs table's `policy_params` hold these strings.
    assert_eq!(canonical("tiresias"), r#""tiresias""#);
    assert_eq!(canonical("fifo"), r#""fifo""#);
    assert_eq!(
        canonical("{tiresias: {starvation_knob: 8, gittins: {dataset: tiresias/yarn-gput1000.csv}}}"),
        r#"{"tiresias":{"gittins":{"dataset":"tiresias/yarn-gput1000.csv"},"starvation_knob":8.0}}"#
    );
    assert_eq!(
        canonical("{tiresias: {gittins: {path: sizes.csv}}}"),
        r#"{"tiresias":{"gittins":{"path":"sizes.csv"}}}"#
    );
    assert_eq!(
        canonical("{optimus-oracle: {progress_multiplier: {2: 3, 1: 5}}}"),
        r#"{"optimus-oracle":{"default_multiplier":1.0,"progress_multiplier":[[1.0,5.0],[2.0,3.0]]}}"#
    );
    assert_eq!(
        canonical("optimus-oracle"),
        r#"{"optimus-oracle":{"default_multiplier":1.0,"progress_multiplier":[]}}"#
    );
    let admission = parse::<AdmissionSpec>("{load-based: {threshold: 1.2}}").unwrap();
    assert_eq!(admission.canonical().to_string(), r#"{"load-based":{"threshold":1.2}}"#);
    let overhead = parse::<OverheadSpec>("{fixed: {resume_s: 30}}").unwrap();
    assert_eq!(overhead.canonical().to_string(), r#"{"fixed":{"first_launch_s":0.0,"resume_s":30.0}}"#);
    assert_eq!(OverheadSpec::default().canonical().to_string(), r#""none""#);
    assert_eq!(PlacementSpec::default().canonical().to_string(), r#""scattered""#);
    assert_eq!(AdmissionSpec::default().canonical().to_string(), r#""accept-all""#);
}

#[test]
fn names_parse_bare_or_with_options_and_errors_list_the_registered_names() {
    assert_eq!(parse::<SchedulerSpec>("tiresias").unwrap(), SchedulerSpec::Tiresias(tiresias::Options::default()));
    let spec: SchedulerSpec =
        parse("{tiresias: {starvation_knob: 8, gittins: {dataset: tiresias/yarn-gput1000.csv}}}").unwrap();
    let options = tiresias::Options {
        starvation_knob: Some(Positive(8.0)),
        gittins: Some(GpuTimeSource::Dataset("tiresias/yarn-gput1000.csv".into())),
    };
    assert_eq!(spec, SchedulerSpec::Tiresias(options));
    let unknown = parse::<SchedulerSpec>("sjf").unwrap_err();
    assert!(
        unknown.contains(&format!("unknown scheduler `sjf`, expected one of {}", Kind::Scheduler.names().join(", "))),
        "{unknown}"
    );
    let unknown = parse::<PlacementSpec>("{packed: {}}").unwrap_err();
    assert!(unknown.contains("unknown placement `packed`, expected one of scattered, consolidated, yarn"), "{unknown}");
    for bad in [
        "{tiresias: {knob: 8}}",
        "{tiresias: {gittins: {}}}",
        "{tiresias: {starvation_knob: -1}}",
        "{fifo: {}, las: {}}",
        "{}",
        "[fifo]",
    ] {
        assert!(parse::<SchedulerSpec>(bad).is_err(), "{bad}");
    }
    assert!(parse::<AdmissionSpec>("load-based").unwrap_err().contains("threshold"));
}
