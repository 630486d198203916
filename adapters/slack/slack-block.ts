/** A Block Kit block, as plain JSON. */
export type SlackBlock = { type: string; block_id?: string } & Record<string, unknown>;
