/** Injection token of the validated ALERT_*, SMTP_* and PUBLIC_URL settings (the same schema the API reads). */
export const ALERTS_CONFIG = Symbol('ALERTS_CONFIG');
