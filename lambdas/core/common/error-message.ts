/** The message of anything thrown: an Error's message, else the value as a string. */
export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));
