"""Fifty memories of each kind from the same engineering team as the worked example, none of
them about Newton: the other services (billing, search, the mobile API, CI, the warehouse,
observability), other databases and queues, other decisions about infrastructure, their
incidents, runbooks and rules. Many name Postgres, caching, backups, dashboards or Tim; a
careful curator still loads none of them for a question about caching in Newton.

Each memory is one record, its fields separated by " | " (lists within a field by "; " or ", ").
"""

from typing import Any

# confidence outcome | decision | its main reason
DECISIONS = [
    "0.80 success | Upgraded the billing service's Postgres from 14 to 16 over logical replication"
    " | A dump and restore would have kept invoicing down for an hour.",
    "0.80 success | Chose Kafka over RabbitMQ for the order events stream"
    " | Consumers must be able to replay a week of events.",
    "0.75 success | Kept RabbitMQ for the notification worker's email jobs"
    " | Per-message acks and delayed retries suit one-off jobs better than a log.",
    "0.85 success | Replaced the self-hosted Jenkins with GitHub Actions"
    " | Nobody wanted to keep patching Jenkins plugins.",
    "0.70 partial | Run CI jobs on self-hosted runners in our own AWS account"
    " | Hosted minutes for the monorepo cost four times as much.",
    "0.70 success | Moved the Terraform state to Terraform Cloud"
    " | Remote locking ended the state-file conflicts between teams.",
    "0.75 success | Moved the data warehouse from Redshift to ClickHouse"
    " | Revenue dashboards went from minutes to seconds per query.",
    "0.90 success"
    " | Pointed the warehouse's nightly extract at a read replica of the billing Postgres"
    " | The extract was holding locks on invoice rows of the primary.",
    "0.65 partial | Chose Elasticsearch over Algolia for product search"
    " | Merchandising rules need scoring scripts Algolia would not run.",
    "0.60 pending | Stayed on Elasticsearch instead of moving to OpenSearch"
    " | The licence change does not touch our self-managed use.",
    "0.80 success | Set Cache-Control max-age=300 on the mobile API's catalogue endpoints"
    " | Half of the catalogue requests were identical GETs the CDN can answer.",
    "0.85 success | Chose EKS over running Kubernetes ourselves on EC2"
    " | Control plane upgrades were eating a week every quarter.",
    "0.70 success | Standardised every service deployment on Helm charts"
    " | One chart per service type instead of hand-written manifests.",
    "0.80 success | Adopted Argo CD for deployments to the production cluster"
    " | Git becomes the record of what runs where.",
    "0.75 success | Replaced the ELK stack with Grafana Loki for application logs"
    " | Indexing every log line cost more than the product search cluster.",
    "0.70 success | Kept Prometheus and added Thanos for long-term metrics"
    " | Thirteen months of metrics without rewriting a single alert.",
    "0.80 pending"
    " | Instrumented services with OpenTelemetry instead of the Jaeger client libraries"
    " | Tracing should not be tied to one backend.",
    "0.90 success | Moved public TLS certificates to cert-manager with Let's Encrypt"
    " | Two certificates expired in one year; renewal has to be automatic.",
    "0.85 success | Moved DNS hosting from the registrar to Route 53"
    " | Zone changes go through Terraform and code review.",
    "0.70 success | Lowered the API records' DNS TTL to 60 seconds ahead of the region move"
    " | A bad region could be rolled back within minutes.",
    "0.55 failure | Chose MongoDB as the CMS content store"
    " | Editors changed their page schemas every week.",
    "0.60 partial | Migrated the CMS content from MongoDB to MySQL"
    " | Reports need joins between pages, authors and campaigns.",
    "0.70 success | Chose Cassandra for the activity feed's write path"
    " | Twenty thousand writes a second spread over three regions.",
    "0.90 success | Retired the Cassandra cluster of the old recommendations service"
    " | Traffic had dropped to a few requests a minute.",
    "0.75 success | Kept the identity service on MySQL 8 rather than porting it"
    " | A port would take a quarter for nothing a user would notice.",
    "0.90 success | Enabled point-in-time recovery with pgBackRest for the billing database"
    " | Nightly dumps alone meant losing up to a day of invoices.",
    "0.85 success | Keep database backups in a separate AWS account with S3 object lock"
    " | A compromised production account must not be able to delete them.",
    "0.80 success | Move S3 access logs to Glacier after 30 days | The log storage bill halved.",
    "0.65 success | Chose the nginx ingress controller over Traefik"
    " | The team already knew nginx's configuration and its failure modes.",
    "0.75 success | Terminate TLS at the load balancer and re-encrypt to the pods"
    " | Compliance asks for encryption in transit inside the VPC as well.",
    "0.70 success | Gave the search cluster dedicated i4i nodes instead of the shared node pool"
    " | Noisy neighbours caused the query latency spikes.",
    "0.60 success | Adopted PagerDuty for on-call instead of Opsgenie"
    " | Its escalation policies match our follow-the-sun rotation.",
    "0.70 success | Moved feature flags from a YAML file to LaunchDarkly"
    " | Flags should change without a deploy.",
    "0.70 partial | Use Karpenter for node autoscaling on EKS"
    " | Better bin packing cut the node count by a third.",
    "0.90 success | Pinned the CI base images by digest"
    " | An upstream image change broke every build one Monday morning.",
    "0.75 success | Split the monorepo's CI into one pipeline per package"
    " | A one-line change waited 40 minutes for the full run.",
    "0.70 pending | Feed the warehouse's billing data through Debezium and Kafka"
    " | Nightly extracts left finance a day behind.",
    "0.80 success | Use dbt for the warehouse transformations"
    " | SQL models with tests and lineage that analysts can review.",
    "0.85 success | Keep the warehouse in eu-west-1 next to the rest of production"
    " | Cross-region transfer fees, and personal data stays in the EU.",
    "0.70 success | Limit the mobile API to 100 requests per minute per token"
    " | A scraper took the catalogue down twice in one month.",
    "0.70 success | Added ETag revalidation to the mobile API's profile endpoint"
    " | The app downloaded the unchanged profile again on every launch.",
    "0.80 success | Moved application secrets to AWS Secrets Manager with External Secrets"
    " | Secrets can be rotated without redeploying the services.",
    "0.85 success | Require mTLS between the payment gateway and the billing service"
    " | The gateway runs in another VPC owned by another team.",
    "0.80 success | Adopted Renovate for dependency updates across all repositories"
    " | Security patches waited weeks for someone to notice them.",
    "0.85 success | Run the billing Postgres on RDS Multi-AZ"
    " | Failover within a minute without running Patroni ourselves.",
    "0.65 success | Dropped the staging search cluster for snapshots restored on demand"
    " | Staging search sat idle 95% of the time.",
    "0.90 success | Keep application logs for 14 days and audit logs for 400 days"
    " | Audits look back a year; debugging looks back two weeks.",
    "0.75 success | Replicate every ClickHouse shard twice"
    " | Losing a node must not lose a day of events.",
    "0.85 success | Send image uploads straight to S3 with presigned URLs"
    " | Uploads were holding API workers for seconds at a time.",
    "0.90 success | Moved the status page to a hosted provider"
    " | Our own status page went down with the outage it was reporting.",
]

# what is known
FACTS = [
    "The billing service's Postgres runs version 16 on an RDS db.r6g.2xlarge instance.",
    "The warehouse reads a Postgres replica of the billing database, about 40 seconds behind.",
    "The product search cluster has 6 Elasticsearch data nodes and 3 dedicated masters.",
    "The product index holds about 18 million documents in 12 primary shards.",
    "Kafka runs on Amazon MSK with 3 brokers; the order-events topic has 24 partitions.",
    "Order events stay in Kafka for 7 days.",
    "The notification worker consumes the emails queue on RabbitMQ 3.12.",
    "CI runs on 12 self-hosted GitHub Actions runners (c6i.4xlarge) in an autoscaling group.",
    "A full CI run of the monorepo takes 14 minutes since the pipeline split.",
    "The CI integration tests start MySQL and Kafka with docker-compose.",
    "The data warehouse is ClickHouse 23.8 with 4 shards of 2 replicas each.",
    "The warehouse's dbt models run every hour from Airflow.",
    "The mobile API is a Go service on 8 pods behind the nginx ingress.",
    "The CDN keeps the mobile app's catalogue images cached for 7 days.",
    "The mobile API's catalogue endpoints answer with Cache-Control: public, max-age=300.",
    "The identity service stores user accounts in MySQL 8.0 on RDS.",
    "The CMS used to keep page drafts in a 3-node MongoDB 6 replica set.",
    "The activity feed's Cassandra cluster has 9 nodes in 3 regions, replication factor 3.",
    "Production runs on EKS 1.29 in eu-west-1 over three availability zones.",
    "Production's Terraform state lives in the Terraform Cloud workspace prod-core.",
    "Prometheus keeps 15 days of metrics locally; Thanos keeps 13 months in S3.",
    "Loki ingests about 400 GB of application logs a day.",
    "Grafana has 140 dashboards, 30 of them owned by the platform team.",
    "The platform on-call rotation is one week long and hands over on Mondays at 10:00.",
    "The wildcard certificate for *.brightcart.io is issued by Let's Encrypt via cert-manager.",
    "The brightcart.io zone is hosted in Route 53; the API records have a 60-second TTL.",
    "pgBackRest archives the billing database's WAL to S3 every 60 seconds.",
    "Billing backups are kept for 35 days, and monthly snapshots for 7 years.",
    "The S3 bucket brightcart-backups has object lock in compliance mode.",
    "The nginx ingress rejects request bodies larger than 10 MB.",
    "The payment gateway calls billing over mTLS with certificates from the internal CA.",
    "The internal CA's root certificate expires in March 2029.",
    "Debezium streams the billing Postgres tables invoices and payments into Kafka.",
    "At month end the billing service creates about 1,200 invoices a minute.",
    "The search API answers at 180 ms at the 99th percentile.",
    "The staging environment shuts down at 20:00 and starts at 07:00 on weekdays.",
    "Elasticsearch snapshots are written to S3 every 6 hours.",
    "The mobile app keeps the basket in an offline SQLite database on the phone.",
    "Karpenter provisions spot instances for the batch node pool only.",
    "The Helm charts live in the platform-charts repository, one chart per service type.",
    "Argo CD syncs production from the deploy repository every 3 minutes.",
    "AWS Secrets Manager rotates the service credentials every 90 days.",
    "The product search cluster cost 9,400 dollars on AWS in October.",
    "The warehouse's largest table, events, holds 42 billion rows.",
    "The identity service issues JWTs that expire after 15 minutes.",
    "Renovate opens at most 10 pull requests per repository and week.",
    "The status page is hosted on Atlassian Statuspage and updated by the incident commander.",
    "Cloudflare's WAF blocks about 2 million requests a day, mostly from scrapers.",
    "The recommendations service was switched off on 30 June 2026.",
    "Billing connects through PgBouncer in transaction mode with 400 client connections.",
]

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

# started | ended (UTC, or - when not recorded) | participants | title | detail
EPISODES = [
    "2026-03-14 22:00 | 2026-03-15 01:30 | Ana, Bilal | Billing Postgres upgrade to 16"
    " | Upgraded billing's Postgres over logical replication; 40 seconds of read-only mode.",
    "2026-02-03 08:10 | 2026-02-03 09:40 | Chen | Kafka broker disk full"
    " | Broker 2 filled its disk after a topic's retention was set to forever by mistake.",
    "2026-04-21 13:00 | 2026-04-21 17:00 | Dmitri, Elena | Red search cluster"
    " | Two data nodes were replaced at once and a shard lost both copies; restored a snapshot.",
    "2026-05-06 07:30 | 2026-05-06 09:30 | Farah | CI runners out of disk"
    " | The Docker layer cache filled the runners' disks; builds queued for two hours.",
    "2026-01-11 06:00 | 2026-01-11 09:00 | Gustavo, Hana | Expired certificate on the partner API"
    " | The partner API's certificate was not under cert-manager and expired on a Sunday.",
    "2026-06-02 09:00 | - | Ivan, Jasmine | Warehouse cut-over to ClickHouse"
    " | Moved the last revenue dashboards off Redshift and switched the dbt target.",
    "2026-02-19 10:00 | 2026-02-19 12:00 | Kofi | DNS move to Route 53"
    " | Imported every zone into Terraform and switched the nameservers; no failed lookups.",
    "2026-07-09 18:20 | 2026-07-09 19:05 | Lucia, Mehmet | Baskets leaked through the CDN"
    " | A deploy put max-age on the basket endpoint; the CDN served one user's basket to others.",
    "2026-03-02 09:00 | - | Nadia | Thanos rollout | Added the Thanos sidecars and store gateway"
    "; 13 months of metrics can now be queried.",
    "- | - | Oskar | Loki replaces ELK"
    " | Switched log shipping to Promtail and turned the ELK cluster off a week later.",
    "2026-06-18 14:00 | 2026-06-18 15:00 | Priyanka | Restore drill, second quarter"
    " | Restored billing to a scratch instance in 47 minutes; the invoice totals matched.",
    "2026-05-27 02:00 | 2026-05-27 05:00 | Quentin | Cassandra repair storm"
    " | Overlapping repairs on the feed cluster doubled read latency; staggered the schedule.",
    "2026-08-14 11:00 | 2026-08-14 12:30 | Rania | RabbitMQ memory alarm"
    " | A template bug grew the emails queue to 3 million messages and publishers were blocked.",
    "2026-09-16 09:00 | 2026-09-16 16:00 | Stefan, Tomoko | EKS upgrade to 1.29"
    " | Upgraded the control plane and node groups; a removed Ingress API version broke 2 charts.",
    "2026-07-22 15:00 | 2026-07-22 15:30 | Uma | Stuck Terraform lock"
    " | A cancelled CI job left the prod-core lock held; unlocked it once no apply was running.",
    "2026-10-05 10:00 | 2026-10-05 11:00 | Dmitri, Viktor"
    " | Search relevance review with merchandising | Merchandising wants brand boosts"
    "; agreed to try function_score on 10% of the traffic.",
    "2026-08-31 23:00 | 2026-09-01 02:00 | Ana | Billing month-end load"
    " | Invoice runs peaked at 1,400 a minute; PgBouncer made clients wait 3 seconds at the top.",
    "2026-09-09 07:00 | 2026-09-09 08:30 | Chen, Wei | Consumer lag on order events"
    " | The loyalty service's consumer fell 2 hours behind; raising max.poll.records fixed it.",
    "2026-06-25 13:40 | 2026-06-25 14:10 | Farah, Gustavo | API token printed in a CI log"
    " | A debug step printed a deploy token; rotated it within 20 minutes and masked it.",
    "2026-02-27 20:00 | 2026-02-27 22:00 | Hana | Status page down with the outage"
    " | The self-hosted status page ran in the same cluster and vanished during the outage.",
    "2026-11-03 15:00 | - | Dmitri, Xenia | Search cluster cost review"
    " | Search costs 9,400 dollars a month; staging moved to snapshots restored on demand.",
    "2026-05-12 09:00 | 2026-05-14 17:00 | Stefan | Move to Argo CD"
    " | Moved 34 services from kubectl apply in CI to Argo CD applications.",
    "2026-04-02 03:00 | 2026-04-02 03:20 | Yusuf | Identity database failover"
    " | RDS failed over during maintenance; logins failed for 70 seconds until pools reconnected.",
    "2026-10-20 13:00 | 2026-10-20 15:00 | Lucia, Mehmet, Tim | Load test of the mobile API"
    " | Reached 6,000 requests a second before the ingress pods ran out of CPU.",
    "2026-01-24 08:00 | 2026-01-25 20:00 | Zara | CMS content move to MySQL"
    " | Exported 80,000 pages from MongoDB and loaded them into MySQL tables over a weekend.",
    "- | - | Tomoko | Batch jobs on spot nodes | Moved the batch jobs to Karpenter's spot pool"
    "; two interruptions a day, all retried.",
    "2026-01-15 09:00 | 2026-01-15 17:00 | Stefan, Nadia, Oskar, Tim | Platform team planning day"
    " | Planned the year: two EKS upgrades, Loki, backups in a separate account, a new CA.",
    "2026-03-24 10:00 | 2026-03-24 16:00 | Priyanka | Backup account set-up"
    " | Created the isolated backup account with object lock and cross-account replication.",
    "2026-08-05 09:00 | 2026-08-05 10:00 | Mehmet | Rate limiting rollout on the mobile API"
    " | Rolled out 100 requests a minute per token; one partner needed an exception.",
    "2026-10-28 21:00 | 2026-10-28 22:15 | Kofi, Hana | Layer 7 flood on the storefront"
    " | 40,000 addresses flooded the storefront; Cloudflare's challenge page held after 12 min.",
    "2026-09-24 06:00 | 2026-09-24 07:30 | Ivan | Billing replica fell behind"
    " | A vacuum put the warehouse's billing replica 30 minutes behind; revenue looked stale.",
    "2026-07-15 10:00 | 2026-07-15 13:00 | Jasmine | ClickHouse parts explosion"
    " | Row-by-row inserts created too many parts; batched them through a buffer table.",
    "- | - | Farah | GitHub Actions outage | Hosted Actions were down for 3 hours"
    "; our self-hosted runners kept taking jobs.",
    "2026-11-12 14:00 | 2026-11-12 15:00 | Gustavo, Uma | Internal CA rotation planning"
    " | Agreed to rotate the internal CA's intermediate in January with two weeks of overlap.",
    "2026-06-10 10:00 | 2026-06-10 12:00 | Nadia, Oskar | Alert fatigue review"
    " | Removed 43 alerts that nobody had acted on in 90 days.",
    "2026-05-19 16:00 | 2026-05-19 18:30 | Ana, Bilal | Payment gateway handshake timeouts"
    " | The gateway's new certificate broke the mTLS handshake; billing retried some charges.",
    "2026-08-20 09:00 | 2026-08-20 17:00 | Elena | Elasticsearch 8 upgrade rehearsal"
    " | Rehearsed the rolling upgrade on a snapshot copy; the analyzer plugin had to be rebuilt.",
    "2026-06-30 11:00 | 2026-06-30 12:00 | Quentin | Recommendations keyspace dropped"
    " | Took a last snapshot to S3 and dropped the keyspace; the nodes went back to the pool.",
    "2026-03-09 09:00 | - | Wei | Renovate rollout | Turned Renovate on for 60 repositories"
    "; the first week brought 300 pull requests.",
    "2026-02-10 13:00 | 2026-02-10 16:00 | Uma, Yusuf | Production access audit"
    " | Found 11 engineers with standing admin access and moved them to just-in-time roles.",
    "2026-10-13 22:00 | 2026-10-14 01:00 | Chen | MSK upgrade to Kafka 3.5"
    " | Upgraded the brokers one by one at night; no consumer saw an error.",
    "2026-09-03 11:00 | 2026-09-03 11:45 | Zara | Stale pages on the docs site"
    " | The docs site's nginx proxy cache served old pages after deploys; added a purge step.",
    "2026-07-20 10:00 | - | Jasmine, Nadia | On-call week review"
    " | Twelve pages in one week, eight of them from a flapping disk alert on ClickHouse hosts.",
    "2026-10-08 09:00 | 2026-10-08 13:00 | Stefan, Kofi, Priyanka | Region failover game day"
    " | Failed production over to eu-central-1 in 38 minutes; DNS propagation took most of it.",
    "2025-12-02 15:00 | 2025-12-02 15:20 | Zara | Foreground index build on the CMS"
    " | A foreground MongoDB index build blocked CMS writes for 9 minutes.",
    "2026-04-14 08:00 | 2026-04-16 18:00 | Bilal | Invoice PDFs moved to S3"
    " | Moved 12 million invoice PDFs out of the billing database into S3 with a backfill job.",
    "- | - | Stefan, Tomoko | Helm chart consolidation"
    " | Merged 27 per-service charts into 3 charts, one per service type.",
    "2026-03-26 09:00 | 2026-03-26 11:00 | Gustavo | Ingress controller CVE patch"
    " | Patched the nginx ingress for a path traversal CVE within a day of its disclosure.",
    "2026-05-04 09:00 | - | Ivan, Xenia | - | Cleared 140 deletion requests"
    "; the warehouse copies needed the manual script.",
    "2026-11-18 12:00 | 2026-11-18 12:06 | - | -"
    " | A reindex without an alias swap left product search empty for 6 minutes.",
]

# action domain | trigger pattern | reason
CENSORS = [
    "block database-migrations | Don't run schema migrations on billing during month-end close"
    " | invoice generation locks the same tables",
    "block database-migrations"
    " | Don't add a column with a volatile default to a large table in one step"
    " | it rewrote the invoices table for 40 minutes",
    "block database-migrations | Don't drop a column in the release that stops reading it"
    " | old pods still read it during the rollout",
    "block database-migrations"
    " | Don't create an index on the billing Postgres without CONCURRENTLY"
    " | a plain CREATE INDEX blocks writes to the table",
    "warn database-migrations | Don't run a migration without a lock_timeout"
    " | one migration queued every query behind its lock",
    "block security | Don't commit secrets to a repository"
    " | a leaked token means rotation and an audit",
    "block security | Don't print environment variables in CI logs"
    " | a debug step leaked a deploy token",
    "block security | Don't grant standing admin access to production | use just-in-time roles",
    "block security | Don't make an S3 bucket public"
    " | serve files through the CDN with signed URLs",
    "block security | Don't disable TLS verification in service clients"
    " | it hid a proxy in staging",
    "block security | Don't log the request bodies of payment endpoints"
    " | card data must never reach the logs",
    "warn deployments | Don't deploy on Friday afternoons | nobody is around to watch the rollout",
    "block deployments | Don't deploy while an incident is open"
    " | it muddies the incident's timeline",
    "block deployments | Don't skip the canary for the mobile API"
    " | the basket leak in July skipped it",
    "warn deployments | Don't kubectl apply by hand in production"
    " | Argo CD reverts it and nobody knows why",
    "warn ci | Don't merge with a red pipeline | a broken main blocks everyone",
    "warn ci | Don't retry a flaky test more than once | retries hide real races",
    "block ci | Don't use latest tags for CI base images | an upstream change broke every build",
    "warn networking | Don't lower a DNS TTL on the day of a move"
    " | resolvers keep the old TTL for a day",
    "block networking | Don't change nameservers without a rollback plan"
    " | a bad delegation takes days to heal",
    "warn networking | Don't purge the whole CDN cache"
    " | origin load tripled after the last full purge",
    "block networking | Don't open a security group to 0.0.0.0/0"
    " | go through the load balancer or the VPN",
    "warn networking | Don't terminate TLS inside application pods"
    " | certificates belong to the ingress",
    "block search | Don't restart two Elasticsearch data nodes at once"
    " | a shard lost both copies in April",
    "warn search | Don't change an index mapping in place"
    " | reindex into a new index and swap the alias",
    "warn search | Don't page deeper than 10,000 hits in product search | use search_after instead",
    "block messaging | Don't set a Kafka topic's retention to forever"
    " | a broker disk filled in February",
    "warn messaging | Don't publish to RabbitMQ without publisher confirms"
    " | messages vanished in a restart",
    "block messaging | Don't reset a consumer group's offsets without its owners"
    " | it replayed a day of loyalty points",
    "block messaging | Don't delete a Kafka topic a connector still reads"
    " | Debezium crashed and the warehouse feed stopped",
    "block data-warehouse | Don't query the billing primary from the warehouse | read the replica",
    "warn data-warehouse | Don't insert into ClickHouse row by row"
    " | batch at least 10,000 rows per insert",
    "block privacy | Don't copy personal data into the warehouse without a deletion path"
    " | deletion requests must reach every copy",
    "warn observability | Don't page for warnings | a page is for what needs a human now",
    "warn observability | Don't add a dashboard without an owner"
    " | orphaned dashboards lie after schema changes",
    "warn observability | Don't create an alert without a runbook link"
    " | the on-call needs a first step at 3 am",
    "block backups | Don't store backups in the production account"
    " | a compromised account could delete them",
    "warn backups | Don't call a backup good before restoring it"
    " | a corrupt dump went unnoticed for weeks",
    "warn backups | Don't schedule the restore drill in month-end week"
    " | the drill competes with invoicing",
    "block infrastructure | Don't run terraform apply from a laptop"
    " | apply from CI so state and logs are kept",
    "block infrastructure | Don't edit Terraform state by hand | use terraform state mv or import",
    "block infrastructure | Don't destroy cloud resources on one review"
    " | a second reviewer reads every destroy",
    "block mobile | Don't cache authenticated mobile API responses at the CDN"
    " | one user's basket reached other users",
    "warn mobile | Don't raise a partner's rate limit without a contract change"
    " | limits are priced",
    "block mobile | Don't break the two previous app versions | users update their apps slowly",
    "warn databases | Don't repair two Cassandra nodes at once"
    " | overlapping repairs doubled read latency",
    "block databases | Don't build MongoDB indexes in the foreground"
    " | it blocked CMS writes for 9 minutes",
    "block platform | Don't upgrade node groups before the EKS control plane"
    " | kubelets may not be newer",
    "block platform | Don't run stateful workloads on spot nodes"
    " | an interruption loses their local data",
    "warn platform | Don't give a namespace unlimited CPU | one runaway job starved the ingress",
]


def domain_distractors() -> list[dict[str, Any]]:
    """250 memory bodies, 50 of each kind, interleaved as an agent would have written them."""
    procedures = [_procedure(record, "steps") for record in RUNBOOKS] + [
        _procedure(record, "core_patterns") for record in PRACTICES
    ]
    kinds = zip(
        map(_decision, DECISIONS),
        ({"kind": "fact", "content": content} for content in FACTS),
        procedures,
        map(_episode, EPISODES),
        map(_censor, CENSORS),
        strict=True,
    )
    return [body for written_together in kinds for body in written_together]


def _decision(record: str) -> dict[str, Any]:
    head, decision, reason = record.split(" | ")
    confidence, outcome = head.split()
    return {
        "kind": "decision",
        "decision": decision,
        "reasons": [reason],
        "confidence": float(confidence),
        "outcome": outcome,
    }


def _procedure(record: str, items: str) -> dict[str, Any]:
    name, domain, description, listed = record.split(" | ")
    return {
        "kind": "procedure",
        "name": name,
        "domain": domain,
        "description": description,
        items: listed.split("; "),
    }


def _episode(record: str) -> dict[str, Any]:
    started, ended, participants, title, detail = record.split(" | ")
    body: dict[str, Any] = {
        "kind": "episode",
        "detail": detail,
        "participants": participants.split(", ") if participants != "-" else [],
    }
    if title != "-":
        body["title"] = title
    for key, when in (("started_at", started), ("ended_at", ended)):
        if when != "-":
            body[key] = when.replace(" ", "T") + ":00Z"
    return body


def _censor(record: str) -> dict[str, Any]:
    head, pattern, reason = record.split(" | ")
    action, domain = head.split()
    return {
        "kind": "censor",
        "trigger_pattern": pattern,
        "reason": reason,
        "action": action,
        "domain": domain,
    }
