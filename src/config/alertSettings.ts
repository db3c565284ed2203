/** How alerts are evaluated, limited, delivered and how often the leader looks for overdue jobs (src/alerts); docs/operating.md lists them. */
export interface AlertSettings {
  /** ALERTS_PER_MINUTE: alerts one tenant may have delivered a minute; the rest are recorded RATE_LIMITED, not sent. Default 60. */
  perMinute: number;
  /** ALERT_RULES_CACHE_MS: how long a process keeps a tenant's alert rules before reading them again (a changed rule applies this much later at most). Default 10 000. */
  rulesCacheMs: number;
  /** ALERT_OVERDUE_CHECK_MS: how often the scheduler leader looks for entries overdue in the queues. Default 5 000. */
  overdueCheckMs: number;
  /** ALERT_DELIVERY_ATTEMPTS: attempts to deliver one alert before it is recorded FAILED. Default 5. */
  deliveryAttempts: number;
  /** ALERT_DELIVERY_BACKOFF_MS: the first retry's delay, doubled for each further one. Default 2 000. */
  deliveryBackoffMs: number;
}
