//! The registry's own consistency: every descriptor's documented options are its options type's
//! fields and all reach the canonical form, and what a policy builds is what its descriptor says.

use super::*;
use crate::core::ClusterSpec;
use crate::profiles::GpuTimeDistribution;
use crate::profiles::gavel::GavelThroughputs;
use std::sync::Arc;

fn parse<T: for<'de> Deserialize<'de>>(yaml: &str) -> Result<T, String> {
    serde_saphyr::from_str(yaml).map_err(|e| e.to_string())
}

fn node(yaml: &str) -> node::PolicyNode {
    serde_saphyr::from_str(yaml).unwrap()
}

/// The fields of a policy's options type, from the error an unknown field gets.
fn option_fields(info: &PolicyInfo) -> Vec<String> {
    let error = match (info.parse)(&node("{not_an_option: 1}")) {
        Err(error) => error.message,
        Ok(_) => panic!("`{}` took an unknown option", info.name),
    };
    match error.split_once("expected one of ") {
        Some((_, names)) => names.split(", ").map(|n| n.trim_matches('`').to_string()).collect(),
        None => {
            assert!(error.contains("takes no options"), "`{}`: {error}", info.name);
            Vec::new()
        }
    }
}

/// Each option a descriptor documents is a field of its options, parses from its example and
/// reaches the canonical form; no two descriptors of a kind share a name.
#[test]
fn descriptors_document_every_option_and_every_option_reaches_the_canonical_form() {
    let mut seen = std::collections::HashSet::new();
    for info in ALL {
        assert!(seen.insert((info.kind, info.name)), "{} `{}` is listed twice", info.kind.noun(), info.name);
        let mut documented: Vec<&str> = info.options.iter().map(|o| o.name).collect();
        documented.sort();
        let mut fields = option_fields(info);
        fields.sort();
        assert_eq!(fields, documented, "`{}`: documented options differ from its Options' fields", info.name);
        let yaml = info.example();
        let canonical = match info.kind {
            Kind::Scheduler => parse::<SchedulerSpec>(&yaml).map(|p| p.canonical()),
            Kind::Placement => parse::<PlacementSpec>(&yaml).map(|p| p.canonical()),
            Kind::Admission => parse::<AdmissionSpec>(&yaml).map(|p| p.canonical()),
            Kind::Overhead => parse::<OverheadSpec>(&yaml).map(|p| p.canonical()),
        }
        .unwrap_or_else(|e| panic!("{yaml}: {e}"));
        let params: Vec<&str> = match &canonical {
            Value::String(name) => {
                assert_eq!(name, info.name);
                Vec::new()
            }
            Value::Object(map) => map[info.name].as_object().unwrap().keys().map(String::as_str).collect(),
            other => panic!("{other}"),
        };
        assert_eq!(params, documented, "`{}`: an option is missing from the canonical form", info.name);
    }
}

/// Hands every policy that reads a file a valid one of the kind it declares.
struct TestInputs;

impl InputReader for TestInputs {
    fn read(&self, input: &PolicyInput) -> Result<crate::policies::ParsedInput, String> {
        match input.what {
            "Gavel throughput oracle" => Ok(Arc::new(GavelThroughputs::default())),
            "GPU-time distribution" => Ok(Arc::new(GpuTimeDistribution::from_samples(vec![10, 20]).unwrap())),
            "Pollux job profiles" => Ok(Arc::new(crate::policies::pollux::profile::Profiles::default())),
            other => Err(format!("no test input for {other}")),
        }
    }
}

/// What each policy builds is what its descriptor promises: round schedulers an order or a
/// whole decision (then they bring a placement), event schedulers an event policy with their
/// own placement, placements for their engine, and admission and overhead only for rounds.
#[test]
fn engines_agree_with_what_gets_built() {
    let cluster = ClusterSpec::uniform(2, 4);
    let ctx = BuildContext {
        load: Some(1.0),
        base_dir: std::path::Path::new("."),
        round_seconds: 60.0,
        cluster: &cluster,
        seed: 0,
        inputs: &TestInputs,
    };
    for info in ALL {
        let built = match info.kind {
            Kind::Scheduler => parse::<SchedulerSpec>(&info.example()).unwrap().build(&ctx),
            Kind::Placement => parse::<PlacementSpec>(&info.example()).unwrap().build(&ctx),
            Kind::Admission => parse::<AdmissionSpec>(&info.example()).unwrap().build(&ctx),
            Kind::Overhead => parse::<OverheadSpec>(&info.example()).unwrap().build(&ctx),
        }
        .unwrap_or_else(|e| panic!("{}: {e}", info.name));
        let brings_placement = info.placement.is_some();
        let agrees = match (&built, info.kind, info.engine) {
            (Built::Order(_), Kind::Scheduler, Engine::Rounds) => !brings_placement,
            (Built::Round(_) | Built::Event(_), Kind::Scheduler, _) => brings_placement,
            (Built::Placement(_), Kind::Placement, Engine::Rounds) => true,
            (Built::EventPlacement(_), Kind::Placement, Engine::Events) => true,
            (Built::Admission(_), Kind::Admission, Engine::Rounds) => true,
            (Built::Overhead(_), Kind::Overhead, Engine::Rounds) => true,
            (Built::Score(_), Kind::Scheduler, Engine::Placements) => !brings_placement,
            _ => false,
        };
        assert!(agrees, "`{}` ({:?}, {:?}) builds something else", info.name, info.kind, info.engine);
        assert_eq!(matches!(built, Built::Event(_)), info.engine == Engine::Events && info.kind == Kind::Scheduler);
        for alternative in info.placement.iter().flat_map(|own| own.alternatives) {
            assert_eq!((alternative.kind, alternative.engine), (Kind::Placement, Engine::Events), "{}", info.name);
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
    let bare = parse::<SchedulerSpec>("tiresias").unwrap();
    assert_eq!(bare, Chosen::named(&tiresias::INFO));
    assert_eq!(parse::<SchedulerSpec>("tiresias:").unwrap(), bare, "a name with no options");
    let spec: SchedulerSpec =
        parse("{tiresias: {starvation_knob: 8, gittins: {dataset: tiresias/yarn-gput1000.csv}}}").unwrap();
    assert_eq!(spec.name(), "tiresias");
    assert_eq!(spec.inputs().len(), 1, "the Gittins distribution is declared");
    assert_eq!(spec.inputs()[0].source, InputSource::Dataset("tiresias/yarn-gput1000.csv".into()));
    let unknown = parse::<SchedulerSpec>("sjf").unwrap_err();
    assert!(
        unknown.contains(&format!("unknown scheduler `sjf`, expected one of {}", Kind::Scheduler.names().join(", "))),
        "{unknown}"
    );
    let unknown = parse::<PlacementSpec>("{packed: {}}").unwrap_err();
    assert!(
        unknown.contains("unknown placement `packed`, expected one of scattered, consolidated, shares, yarn"),
        "{unknown}"
    );
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

/// Errors inside a policy's options point at the option, for built-ins as for the policies a
/// program registers (both go through [`node`]).
#[test]
fn option_errors_carry_the_position_of_the_option() {
    #[derive(Debug, Deserialize)]
    struct Holder {
        #[allow(dead_code)]
        scheduler: SchedulerSpec,
    }
    node::take_recorded();
    let yaml = "scheduler:\n  tiresias:\n    starvation_knob: lots\n";
    assert!(serde_saphyr::from_str::<Holder>(yaml).is_err());
    let error = node::take_recorded().expect("the policy error is recorded with its position");
    assert_eq!((error.at.line, error.at.column), (3, 22), "{error:?}");
    assert_eq!(error.message, "scheduler `tiresias`: expected a number, found `lots`");
    assert!(serde_saphyr::from_str::<Holder>("scheduler: {tiresis: {}}\n").is_err());
    let error = node::take_recorded().unwrap();
    assert_eq!((error.at.line, error.at.column), (1, 13), "{error:?}");
}
