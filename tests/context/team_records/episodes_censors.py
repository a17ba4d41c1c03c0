"""The team's other episodes and rules."""

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
