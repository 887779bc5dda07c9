//! `run_workflow`: an external agent runs one of the user's saved Waymark workflows — a task
//! the user did once with the model, replayed without it — by name, with its inputs. The run
//! is a task of the user's own session in the side panel, under the same safety policy (its
//! cards wait for the user); the answer comes back when it ends.

use std::collections::BTreeMap;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, schemars, tool, tool_router};
use serde::Deserialize;
use waymark_protocol::BridgeCall;

use super::SessionsServer;

/// Arguments of `run_workflow`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct WorkflowArgs {
    /// The workflow's name, as Waymark's side panel lists it under Workflows.
    pub name: String,
    /// Values for its inputs by input name (`{"full_name": "Ada Lovelace"}`); inputs left out
    /// take the values the workflow was saved with.
    #[serde(default)]
    pub inputs: BTreeMap<String, String>,
}

#[tool_router(router = workflow_router, vis = "pub(super)")]
impl SessionsServer {
    #[tool(description = "Run one of the user's saved Waymark workflows (a task done once \
                          with Waymark, replayed step by step without a model) on the tab the \
                          user is looking at, by `name`, with `inputs` by input name. Risky \
                          steps wait for the user's approval in the side panel; a step whose \
                          page changed is repaired by Waymark's model or the run stops saying \
                          where and why. An unknown name lists the saved workflows.")]
    async fn run_workflow(
        &self,
        context: RequestContext<RoleServer>,
        Parameters(WorkflowArgs { name, inputs }): Parameters<WorkflowArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        if name.trim().is_empty() {
            return Err(ErrorData::invalid_params("give the workflow's `name`", None));
        }
        Ok(self.browser(&context, BridgeCall::RunWorkflow { name, values: inputs }).await)
    }
}
