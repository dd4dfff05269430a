/**
 * Legacy app receipts (StoreKit 1): the receipt itself is not trusted. Apple's ReceiptUtility
 * extracts a transaction id from it; the App Store Server API (authenticated with the app's
 * App Store Connect key) answers with signed transactions, which are verified like StoreKit 2
 * ones. The API base URL follows the environment, or APP_STORE_SERVER_API_BASE_URL (tests: a stand-in).
 */
import { APIException, AppStoreServerAPIClient, Environment, ReceiptUtility } from '@apple/app-store-server-library';
import { config } from '../config.js';
import { AppError } from '../errors.js';

export interface ServerApiCredentials {
  issuer_id: string;
  key_id: string;
  /** The .p8 private key (PEM). */
  private_key: string;
}

const BASE_URLS = { Production: 'https://api.storekit.apple.com', Sandbox: 'https://api.storekit-sandbox.apple.com' } as const;

/** Apple's client, sending its requests to a configurable base URL with a timeout. */
class ConfiguredAppStoreClient extends AppStoreServerAPIClient {
  constructor(credentials: ServerApiCredentials, bundleId: string, environment: Environment, private readonly baseUrl: string) {
    super(credentials.private_key, credentials.key_id, credentials.issuer_id, bundleId, environment);
  }

  protected override async makeFetchRequest(path: string, query: URLSearchParams, method: string, body: string | Buffer | undefined, headers: Record<string, string>) {
    const response = await fetch(`${this.baseUrl}${path}?${query}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : new Uint8Array(body) }),
      signal: AbortSignal.timeout(config.storeTimeoutMs),
    });
    return response as unknown as Awaited<ReturnType<AppStoreServerAPIClient['makeFetchRequest']>>;
  }
}

function mapApiError(error: unknown): AppError {
  if (error instanceof APIException) {
    if (error.httpStatusCode === 404 || error.httpStatusCode === 400) {
      return new AppError('INVALID_RECEIPT', `the App Store does not know this receipt's transaction (${error.httpStatusCode})`, { cause: error });
    }
    if (error.httpStatusCode === 401) {
      return new AppError('VERIFICATION_FAILED', 'the App Store Server API refused our credentials (stores apple set --issuer-id --key-id --key-file)', { retryable: true, cause: error });
    }
    return new AppError('VERIFICATION_FAILED', `the App Store Server API answered ${error.httpStatusCode}; retry`, { retryable: true, cause: error });
  }
  const timedOut = (error as Error).name === 'TimeoutError';
  return new AppError('VERIFICATION_FAILED', `the App Store Server API did not answer (${timedOut ? 'timeout' : (error as Error).message}); retry`, { retryable: true, cause: error });
}

/** The transaction id inside a base64 app receipt, or INVALID_RECEIPT. */
export function transactionIdOfAppReceipt(receiptData: string): string {
  let transactionId: string | null = null;
  try {
    transactionId = new ReceiptUtility().extractTransactionIdFromAppReceipt(receiptData.trim());
  } catch {
    transactionId = null;
  }
  if (!transactionId) throw new AppError('INVALID_RECEIPT', 'receipt_data is neither a StoreKit 2 transaction nor an App Store app receipt with a transaction');
  return transactionId;
}

/**
 * The signed transactions the App Store holds for the receipt: the one the receipt names, and the
 * latest of its subscription (renewals since the receipt was issued).
 */
export async function fetchSignedTransactions(
  credentials: ServerApiCredentials,
  bundleId: string,
  environment: keyof typeof BASE_URLS,
  transactionId: string,
  decode: (jws: string) => Promise<{ originalTransactionId?: string }>,
): Promise<string> {
  const client = new ConfiguredAppStoreClient(
    credentials,
    bundleId,
    environment === 'Production' ? Environment.PRODUCTION : Environment.SANDBOX,
    config.appStoreServerApiBaseUrl ?? BASE_URLS[environment],
  );
  try {
    const { signedTransactionInfo } = await client.getTransactionInfo(transactionId);
    if (!signedTransactionInfo) throw new AppError('INVALID_RECEIPT', 'the App Store returned no transaction for this receipt');
    const { originalTransactionId } = await decode(signedTransactionInfo);
    const statuses = await client.getAllSubscriptionStatuses(transactionId);
    for (const group of statuses.data ?? []) {
      for (const last of group.lastTransactions ?? []) {
        if (last.originalTransactionId === originalTransactionId && last.signedTransactionInfo) return last.signedTransactionInfo;
      }
    }
    return signedTransactionInfo;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw mapApiError(error);
  }
}
