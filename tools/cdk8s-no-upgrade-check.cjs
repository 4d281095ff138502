// Preloaded into the Node processes npm and npx start in this project (.npmrc node-options).
// cdk8s-cli reads each option from a CDK8S_* variable too; its upgrade check fetches a
// registry page on every run, which a pinned CLI (package-lock.json) does not need and a
// machine without that page answers with a stack trace. An explicit setting wins.
process.env.CDK8S_CHECK_UPGRADE ??= "false";
