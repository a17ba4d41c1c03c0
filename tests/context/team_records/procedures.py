"""The team's runbooks and practices."""

# name | domain | description | steps, separated by semicolons
RUNBOOKS = [
    "Incident Response | incidents | What to do when paged for a production incident."
    " | Acknowledge the page within 5 minutes; Open an incident channel and name a commander"
    "; Post a first status update within 15 minutes; Mitigate before looking for the root cause"
    "; Write the postmortem within 5 working days",
    "Database Migration Runbook | database-migrations"
    " | How a schema change reaches the billing Postgres."
    " | Split the change into expand and contract releases"
    "; Run it against last night's production snapshot"
    "; Set lock_timeout and statement_timeout in the migration; Apply it in the low-traffic window"
    "; Watch the warehouse replica's lag until it recovers",
    "Certificate Rotation | security"
    " | Rotating a TLS certificate that cert-manager does not manage."
    " | Issue the new certificate from the internal CA; Deploy it next to the old one"
    "; Switch the listeners to the new certificate; Check the chain with openssl s_client"
    "; Revoke the old certificate",
    "Postgres Major Upgrade | database-migrations"
    " | Moving a service's Postgres to a new major version with little downtime."
    " | Create the new instance from a snapshot; Set up logical replication from the old one"
    "; Compare row counts table by table"
    "; Switch the service's connection string during a short read-only window"
    "; Keep the old instance for a week",
    "RabbitMQ Queue Recovery | messaging | When a RabbitMQ queue stops draining."
    " | Check the dead-letter queue; Find the poison message by its redelivery count"
    "; Move it to the parking queue; Restart the consumers one at a time",
    "Elasticsearch Reindex | search | Changing the product index's mapping without downtime."
    " | Create the new index with the new mapping; Reindex from the index behind the alias"
    "; Compare the document counts; Swap the alias in one request"
    "; Delete the old index a day later",
    "CI Runner Recovery | ci | Bringing a broken self-hosted runner back."
    " | Drain the runner in GitHub; Check its disk and Docker storage"
    "; Replace the instance from the launch template"
    "; Confirm it registers again with the right labels",
    "Deployment Rollback | deployments | Going back to the last good release of a service."
    " | Find the last healthy revision in Argo CD; Pause auto-sync for the application"
    "; Roll back to that revision; Tell the release channel what was rolled back and why",
    "Kubernetes Node Drain | platform | Taking a node out of the cluster for maintenance."
    " | Cordon the node; Check the pod disruption budgets; Drain it with a 5-minute grace period"
    "; Terminate the instance once it is empty",
    "EKS Cluster Upgrade | platform"
    " | Moving the production cluster to the next Kubernetes minor version."
    " | Check the deprecated APIs with pluto; Upgrade the control plane"
    "; Upgrade the managed add-ons; Roll the node groups one at a time",
    "Terraform State Recovery | infrastructure"
    " | When a Terraform workspace is locked or its state is wrong."
    " | Make sure no apply is running; Download the last good state version"
    "; Force-unlock with the lock id; Run a plan and expect no changes",
    "On-call Handover | incidents | Passing the pager to the next engineer on Monday."
    " | List open incidents and their owners; Hand over silenced alerts with their expiry"
    "; Mention deploys planned for the week; Confirm the new on-call received a test page",
    "DNS Change | networking | Changing a public DNS record of brightcart.io."
    " | Lower the record's TTL a day ahead; Make the change in Terraform with a review"
    "; Check it with dig against two public resolvers; Raise the TTL again the next day",
    "CDN Cache Purge | networking | Removing stale objects from the CDN after a bad deploy."
    " | Purge by surrogate key, never everything; Watch the origin's request rate for 10 minutes"
    "; Check a purged URL from two regions",
    "Backup Restore Drill | backups | The quarterly proof that billing can be restored."
    " | Restore last night's billing backup to a scratch instance; Run the invoice totals check"
    "; Record how long the restore took; Delete the scratch instance",
    "Warehouse Backfill | data-warehouse | Reloading a date range of a ClickHouse table."
    " | Pause the hourly dbt run; Drop the affected partitions"
    "; Re-run the extract for the date range; Compare totals with the billing replica"
    "; Resume the dbt schedule",
    "ClickHouse Disk Pressure | data-warehouse | When a ClickHouse host passes 85% disk."
    " | Find the largest tables with system.parts; Check for a merge backlog"
    "; Move old partitions to the S3 disk; Grow the volume if that is not enough",
    "Mobile API Release | mobile | Shipping a new version of the mobile API."
    " | Deploy to the 5% canary; Watch the app's crash-free sessions for an hour"
    "; Check the CDN's cache headers on the changed endpoints; Roll out to everyone",
    "Cassandra Node Replacement | databases | Replacing a dead node of the activity feed cluster."
    " | Confirm the node is down in nodetool status"
    "; Start the new node with replace_address_first_boot; Wait for streaming to finish"
    "; Run a repair on the new node only",
    "MySQL Slow Query Triage | databases | When the identity service's MySQL slows down."
    " | Open Performance Insights for the instance; Find the top queries by load"
    "; Run EXPLAIN on them; Add the missing index with an online DDL",
    "Kafka Consumer Lag | messaging | When a consumer group falls behind on a topic."
    " | Find the lagging partitions; Check the consumer's processing time per record"
    "; Scale the consumers up to the partition count"
    "; Tune max.poll.records if the lag keeps growing",
    "Payment Gateway Outage | incidents | When the payment gateway stops answering billing."
    " | Switch billing to queued charges; Open a ticket with the gateway's support"
    "; Post on the status page; Replay the queued charges once the gateway recovers",
    "Security Patch Rollout | security | Applying a critical CVE fix across the fleet."
    " | List the affected images with the scanner; Merge the Renovate pull requests for them"
    "; Deploy to staging and run the smoke tests; Deploy to production within 48 hours",
    "Production Database Access | security | How an engineer reads production data when debugging."
    " | Request access in the access portal with a ticket"
    "; Connect through the bastion with the read-only role"
    "; Keep the session under an hour, as it is recorded",
    "Region Failover | backups | Moving production to eu-central-1 when eu-west-1 is down."
    " | Declare a disaster in the incident channel; Promote the replicas in eu-central-1"
    "; Point the API records at the standby load balancer; Scale the standby node groups up",
]

# name | domain | description | core patterns, separated by semicolons
PRACTICES = [
    "Kafka Topic Creation | messaging | Creating a new Kafka topic for a service's events."
    " | Name topics domain.entity.event; Set retention explicitly"
    "; Size partitions for the peak number of consumers"
    "; Register the schema before the first message",
    "Search Cluster Scaling | search | Growing the product search cluster ahead of a sale."
    " | Add data nodes a week before the traffic; Keep shards between 20 and 40 GB"
    "; Never change the number of masters during a sale",
    "Flaky Test Quarantine | ci | Dealing with tests that pass and fail on the same commit."
    " | Quarantine the test with an issue link; Give it an owner and a two-week deadline"
    "; Never raise the global retry count",
    "Terraform Change Review | infrastructure"
    " | Reviewing a pull request that changes cloud resources. | Read the plan, not only the diff"
    "; Any destroy needs a second reviewer; Apply from CI only"
    "; Import existing resources before writing them",
    "Alert Writing | observability | Writing an alert that deserves to wake someone."
    " | Alert on symptoms users feel; Every alert links its runbook"
    "; Page only for what needs a human now",
    "Postmortem Writing | incidents | Writing up an incident after it is resolved."
    " | Stay blameless; Build the timeline from logs and chat, not memory"
    "; Give every action item an owner and a date",
    "Log Pipeline Backpressure | observability"
    " | When Loki falls behind and Promtail starts buffering. | Find the noisiest streams by label"
    "; Drop debug logs at the agent; Raise ingestion limits only for the one tenant",
    "S3 Bucket Creation | security | Creating a new S3 bucket in any account."
    " | Block public access; Turn on default encryption; Tag the owner and the data class"
    "; Add a lifecycle rule from day one",
    "Secret Rotation | security | Rotating a credential that may have leaked."
    " | Rotate first, investigate after; Check the access logs for use of the old secret"
    "; Record the rotation in the security channel",
    "Engineer Offboarding | security | Removing a departing engineer's access."
    " | Disable the SSO account on the last day; Rotate every shared secret they could read"
    "; Transfer ownership of their dashboards and alerts",
    "dbt Model Review | data-warehouse | Reviewing a change to the warehouse's dbt models."
    " | Every model has a unique and a not-null test on its key; Document each new column"
    "; Check the lineage graph for downstream dashboards",
    "Mobile API Compatibility | mobile | Changing the mobile API without breaking installed apps."
    " | Support the two previous app versions; Add fields, never rename them"
    "; Announce removals a release ahead",
    "Rate Limit Exception | mobile | When a partner asks for more than the default rate limit."
    " | Ask for their expected peak in writing; Grant it per token, never per IP"
    "; Put an expiry date on every exception",
    "Load Test Before Launch | performance | Load testing a service before a marketing launch."
    " | Test at twice the expected peak; Run against production-sized data in staging"
    "; Watch the ingress and the database, not only the service",
    "Capacity Review | platform | The quarterly look at the cluster's headroom."
    " | Compare requests with real usage per namespace"
    "; Keep 30% headroom in every availability zone"
    "; Right-size the five most over-provisioned services",
    "Cost Anomaly Triage | finops | When the daily AWS cost alert fires."
    " | Group Cost Explorer by service and tag; Find the owner from the team tag"
    "; Ask before deleting anything",
    "MongoDB Replica Set Maintenance | databases | Patching the CMS replica set's members."
    " | Patch the secondaries first; Step down the primary before patching it"
    "; Build indexes in a rolling fashion, never in the foreground",
    "Dependency Update Review | ci | Merging the Renovate pull requests of the week."
    " | Read the changelog of every major bump; Merge patch updates when CI is green"
    "; Group updates by ecosystem",
    "New Service Onboarding | platform | Bringing a new service into the production cluster."
    " | Create the repository from the service template"
    "; Add a Helm values file and an Argo CD application"
    "; Register it in the service catalogue with an owner",
    "Data Deletion Request | privacy | Handling a customer's request to delete their data."
    " | Confirm the requester's identity; Delete from the identity, billing and CMS databases"
    "; Run the warehouse deletion script; Answer within 30 days",
    "Feature Flag Cleanup | deployments | Removing flags that have done their job."
    " | Remove a flag two weeks after it reaches 100%; Delete the code path before the flag"
    "; Never reuse a flag's name",
    "Health Check Tuning | networking | Setting the load balancer's health checks for a service."
    " | Check a cheap endpoint that touches no dependency"
    "; Three failures before a target is removed; Keep the interval at 10 seconds",
    "Status Page Update | incidents | Writing to customers during an incident."
    " | Say what users see, not what broke inside; Update every 30 minutes even without news"
    "; Never promise a time to resolution",
    "Release Train | deployments | The weekly release of the storefront services."
    " | Cut the release branch on Tuesday; Freeze it after the staging sign-off"
    "; Ship on Wednesday morning, never on Friday",
    "Access Review | security | The quarterly review of who can reach production."
    " | Export every role with its members; Ask each team lead to confirm their people"
    "; Remove unconfirmed access within a week",
]
