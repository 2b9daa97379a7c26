//! `tpuc targets`: the plugins found, their versions and paths, and the targets they serve.

use miette::Result;
use tpuc_driver::Target;
use tpuc_driver::plugins::{PluginDescription, describe_plugin};
use tpuc_driver::target::TPU_TOPOLOGIES;

use crate::Format;
use crate::compile::PluginArgs;
use crate::render::print_json;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    plugins: PluginArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

pub fn run(args: &Args) -> Result<()> {
    let plugins = args.plugins.paths();
    let topologies: Vec<String> = TPU_TOPOLOGIES
        .iter()
        .map(|(_, example)| format!("tpu:{example}"))
        .collect();
    let platforms = [
        (
            "tpu",
            Target::Tpu {
                topology: TPU_TOPOLOGIES[1].1.to_owned(),
            },
            format!(
                "tpu:<generation>:<topology>, generations {}; e.g. {}",
                TPU_TOPOLOGIES
                    .iter()
                    .map(|(family, _)| *family)
                    .collect::<Vec<_>>()
                    .join(", "),
                topologies.join(", ")
            ),
        ),
        (
            "cpu",
            Target::Cpu { devices: 1 },
            "cpu, cpu:<devices>".to_owned(),
        ),
    ];
    let mut rows = Vec::new();
    for (name, probe, targets) in platforms {
        let row = match describe_plugin(&probe, &plugins) {
            Ok(description) => found(name, &targets, &description),
            Err(error) => serde_json::json!({
                "platform": name,
                "targets": targets,
                "found": false,
                "error": error.to_string(),
                "help": miette::Diagnostic::help(&error).map(|help| help.to_string()),
            }),
        };
        rows.push(row);
    }
    if args.format == Format::Json {
        return print_json(&serde_json::json!({ "plugins": rows }));
    }
    for row in &rows {
        let text = |field: &str| row[field].as_str().unwrap_or("-").to_owned();
        println!("{}", text("platform"));
        println!("  targets           {}", text("targets"));
        if row["found"] == true {
            println!("  path              {}", text("path"));
            println!("  platform version  {}", text("platform_version"));
            println!("  PJRT C API        {}", text("pjrt_api_version"));
            println!(
                "  StableHLO         {} (accepts {} and newer)",
                text("stablehlo_version"),
                text("stablehlo_minimum_version")
            );
        } else {
            println!("  not found: {}", text("error"));
            println!("  {}", text("help"));
        }
    }
    Ok(())
}

fn found(name: &str, targets: &str, description: &PluginDescription) -> serde_json::Value {
    let attribute = |key: &str| description.attributes.get(key).cloned();
    serde_json::json!({
        "platform": name,
        "targets": targets,
        "found": true,
        "path": description.path,
        "platform_version": description.platform_version,
        "pjrt_api_version": description.pjrt_api_version,
        "stablehlo_version": attribute("stablehlo_current_version"),
        "stablehlo_minimum_version": attribute("stablehlo_minimum_version"),
        "xla_version": attribute("xla_version"),
    })
}
