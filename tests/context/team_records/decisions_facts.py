"""The team's other decisions and facts."""

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
