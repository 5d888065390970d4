// How many requests `check` may spend: a module of its own so --help can say it without loading the client.

export const MAX_CHECK_REQUESTS = 5;
