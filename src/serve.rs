//! `teu serve`: one axum server with `/v2` (teu-rest) and `/graphql` (teu-graphql).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::http::StatusCode;
use axum::middleware;
use axum::response::Response;
use axum::Router;
use teu_rest::RestState;
use teu_store::Store;
use tower_http::compression::CompressionLayer;
use tower_http::cors::CorsLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use crate::cli::ServeArgs;

/// Longest time a request may take before it is answered 408.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The bundled real samples: DCSA events (`data/dcsa`) and AIS positions (`data/ais`); see
/// `data/NOTICE.md` for their sources and licences.
fn demo_dirs() -> Vec<PathBuf> {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data");
    vec![data.join("dcsa"), data.join("ais")]
}

/// The demo emails with PDF attachments (`data/email/*.eml`, made by
/// `data/email/make_demo_emails.py` from the DCSA samples' references), sent to
/// [`DEMO_INBOUND_ADDRESS`].
pub fn demo_email_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join("email")
}

/// The demo account's fixed inbound address, to which the demo emails are sent (besides the
/// random one every account gets).
pub const DEMO_INBOUND_ADDRESS: &str = "demo@inbound.teu.local";

/// The generated part of the demo data: enough shipments that the lists have pages to turn,
/// with terminal checks, line deadlines and rail legs (see `teu_synth::terminal`).
pub const DEMO_GENERATED: teu_synth::dcsa::GenOptions = teu_synth::dcsa::GenOptions {
    shipments: 80,
    seed: 2026,
    events_per_file: 0,
};

/// Builds the whole application: `/v2/...` and `/graphql` (with `graphql` options) with
/// tracing, request ids, compression, CORS and a timeout.
pub fn app(store: Store, graphql: &teu_graphql::Options) -> Router {
    let options = graphql;
    // One inference allowance per account, whichever API spends it.
    let limiter = teu_api::limit::AccountLimiter::default();
    let state = RestState::with_limiter(store.clone(), limiter.clone());
    let graphql = teu_graphql::router(teu_graphql::schema_with(store, limiter, options)).layer(
        middleware::from_fn_with_state(state.store.clone(), teu_graphql::require_account),
    );
    Router::new()
        .nest("/v2", teu_rest::router(state))
        .merge(graphql)
        .merge(crate::map::router())
        .fallback(not_found)
        .layer(CompressionLayer::new())
        .layer(CorsLayer::permissive())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http())
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
}

/// Any path outside `/v2` and `/graphql`: a JSON:API 404.
async fn not_found(uri: axum::http::Uri) -> Response {
    teu_rest::error_response(
        StatusCode::NOT_FOUND,
        "Not Found",
        &format!(
            "No route for {}: teu serves /v2/..., /graphql and /map/{{container_id}}.",
            uri.path()
        ),
    )
}

/// Serves until Ctrl-C or SIGTERM, then drains in-flight requests.
pub async fn serve(store: Store, args: ServeArgs) -> Result<()> {
    if args.demo {
        let account = store.ensure_account("demo", true).await?;
        store
            .add_inbound_address(account.id, DEMO_INBOUND_ADDRESS)
            .await?;
        // Feeds first, then the emails about their shipments; Message-IDs keep it idempotent.
        let files =
            teu_pipeline::ingest::expand_paths(&[demo_dirs(), vec![demo_email_dir()]].concat())?;
        let failures = crate::commands::ingest_files(
            &store,
            &account,
            &files,
            crate::commands::DERIVE_EVERY_ROWS as usize,
            false,
        )
        .await;
        if failures > 0 {
            eprintln!("warning: {failures} demo files could not be read");
        }
        let generated = teu_synth::dcsa::generate(&DEMO_GENERATED);
        let extra = teu_synth::terminal::extra_feeds(&generated, DEMO_GENERATED.seed);
        // AIS positions of the generated vessels along the sea lanes, so that the demo's
        // containers have tracks (teu_synth::ais).
        let ais = teu_synth::ais::generate_ais(
            &teu_synth::ais::events_of(&generated),
            DEMO_GENERATED.seed,
        );
        for file in generated {
            let value = serde_json::Value::Array(file.events);
            let name = format!("generated:{}", file.name);
            let batch = teu_pipeline::feeds::dcsa::read_value(value, &name)?;
            let summary = teu_pipeline::ingest::ingest_batch(&store, &account, batch).await?;
            crate::commands::print_summary(&summary, false);
        }
        // Terminal availability, line deadlines and rail legs for the generated containers.
        for (name, content) in extra.files {
            let batch =
                teu_pipeline::feeds::read_bytes(content.as_bytes(), &format!("generated:{name}"))?;
            let summary = teu_pipeline::ingest::ingest_batch(&store, &account, batch).await?;
            crate::commands::print_summary(&summary, false);
        }
        let batch = teu_pipeline::feeds::read_bytes(
            ais.csv.as_bytes(),
            &format!("generated:{}", ais.name),
        )?;
        let summary = teu_pipeline::ingest::ingest_batch(&store, &account, batch).await?;
        crate::commands::print_summary(&summary, false);
        let key = store.issue_key(account.id).await?;
        println!("API key: {key}");
    }
    // Deliver ingest notifications (from any process on this database) to subscriptions.
    store
        .notifier()
        .listen()
        .await
        .context("starting the change-notification listener")?;
    // Parse the sea-lane network now rather than on the first map request.
    tokio::task::spawn_blocking(teu_pipeline::route::sealanes::network).await?;
    let listener = tokio::net::TcpListener::bind(args.bind)
        .await
        .with_context(|| format!("binding {}", args.bind))?;
    let addr = listener.local_addr()?;
    // The signal handlers exist before anyone learns the address: a SIGTERM that comes right
    // after is a graceful shutdown, not the default kill.
    let shutdown = shutdown_signal();
    println!("Listening on http://{addr} (GraphQL: http://{addr}/graphql, REST: http://{addr}/v2/containers)");
    // Webhook delivery workers, inside the server (`teu deliver` runs them alone).
    let (stop_delivery, stopped) = tokio::sync::oneshot::channel::<()>();
    let delivery = if args.no_webhook_delivery {
        None
    } else {
        let mut config = teu_rest::delivery::DeliveryConfig::from_env()?;
        if std::env::var_os("TEU_PUBLIC_URL").is_none() {
            config.public_base = format!("http://{addr}/v2");
        }
        Some(tokio::spawn(teu_rest::delivery::run(
            store.clone(),
            config,
            async move {
                let _ = stopped.await;
            },
        )))
    };
    // A `Router` given to `axum::serve` as it is copies its whole route table for every
    // connection (`Router::with_state` on a clone of 71 routes: 0.27 M instructions, a tenth
    // of a `/v2` page's own work on PostgreSQL when each request is a new connection,
    // docs/NOTES.md); made into a service once, a connection shares it (an `Arc`'s clone).
    let service = app(store, &args.graphql_options())
        .with_state(())
        .into_make_service();
    axum::serve(listener, service)
        .with_graceful_shutdown(shutdown)
        .await
        .context("serving")?;
    let _ = stop_delivery.send(());
    if let Some(d) = delivery {
        let _ = d.await;
    }
    Ok(())
}

/// `teu deliver`: the webhook delivery workers without HTTP, until Ctrl-C or SIGTERM (or, with
/// `--drain`, until no notification is due).
pub async fn deliver(store: Store, drain: bool) -> Result<()> {
    let config = teu_rest::delivery::DeliveryConfig::from_env()?;
    if drain {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let watcher = {
            let store = store.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    match store.due_notification_count().await {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) => {
                            tracing::warn!(error = %e, "counting due notifications failed");
                            break;
                        }
                    }
                }
                let _ = stop.send(());
            })
        };
        teu_rest::delivery::run(store.clone(), config, async move {
            let _ = stopped.await;
        })
        .await;
        let _ = watcher.await;
    } else {
        teu_rest::delivery::run(store.clone(), config, shutdown_signal()).await;
    }
    for (status, n) in store.notification_counts().await? {
        println!("{status}: {n}");
    }
    Ok(())
}

/// Resolves at Ctrl-C or SIGTERM. The SIGTERM handler is installed when this is called, not
/// when the future is first polled, so a signal in between is not lost.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    async move {
        let ctrl_c = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        #[cfg(unix)]
        let term = async move {
            match term {
                Some(mut s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let term = std::future::pending::<()>();
        tokio::select! {
            _ = ctrl_c => {},
            _ = term => {},
        }
        tracing::info!("shutting down: draining in-flight requests");
    }
}
