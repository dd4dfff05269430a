import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type AppOverview, get, whenUnauthorized } from './api';
import { Customers } from './pages/customers';
import { Offerings } from './pages/offerings';
import { Overview } from './pages/overview';
import { Products } from './pages/products';
import { SignIn } from './pages/sign-in';
import { Subscription } from './pages/subscription';
import { Subscriptions } from './pages/subscriptions';
import { Webhooks } from './pages/webhooks';
import { href, useLocation } from './router';
import { clearKey, publicKeyId, readKey } from './session';
import { useLoad } from './ui';
import './app.css';

const PAGES = [
  { page: 'overview', label: 'Overview' },
  { page: 'subscriptions', label: 'Subscriptions' },
  { page: 'customers', label: 'Customers' },
  { page: 'webhooks', label: 'Webhooks' },
  { page: 'products', label: 'Products' },
  { page: 'offerings', label: 'Offerings' },
] as const;

function App() {
  const [signedIn, setSignedIn] = useState(() => readKey() !== null);
  const [notice, setNotice] = useState<string | undefined>();
  const location = useLocation();
  useEffect(
    () =>
      whenUnauthorized((message) => {
        setNotice(message);
        setSignedIn(false);
      }),
    [],
  );
  if (!signedIn)
    return (
      <SignIn
        notice={notice}
        onSignedIn={() => {
          setNotice(undefined);
          setSignedIn(true);
        }}
      />
    );
  const signOut = () => {
    clearKey();
    setNotice('You are signed out.');
    setSignedIn(false);
  };
  return (
    <>
      <header>
        <span class="brand">Subscriptions console</span>
        <nav aria-label="Main">
          {PAGES.map(({ page, label }) => (
            <a key={page} href={href(page)} aria-current={location.page === page ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <div class="session">
          <SignedInAs />
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main>
        <Page page={location.page} rest={location.rest} />
      </main>
    </>
  );
}

/**
 * Which app this tab is signed in to (GET /v1/app), and with which key: its public id, the one
 * `admin keys list --app A` prints.
 */
function SignedInAs() {
  const [keyId, setKeyId] = useState<string | undefined>();
  const app = useLoad(() => get<{ data: AppOverview }>('/v1/app'), []);
  useEffect(() => {
    const key = readKey();
    if (key) publicKeyId(key).then(setKeyId, () => setKeyId(undefined));
  }, []);
  if (!keyId) return null;
  return (
    <span class="signed-in" data-testid="signed-in-as" title="The app, and the key's id as admin keys list prints it">
      {app.state === 'done' && (
        <strong data-testid="app-name" title={app.data.data.app_id}>
          {app.data.data.name}
        </strong>
      )}{' '}
      <code>{keyId}</code>
    </span>
  );
}

function Page({ page, rest }: { page: string; rest: string[] }) {
  switch (page) {
    case 'overview':
      return <Overview />;
    case 'subscriptions':
      return rest[0] ? <Subscription id={rest[0]} /> : <Subscriptions />;
    case 'customers':
      return <Customers key={rest[0] ?? ''} userId={rest[0]} />;
    case 'webhooks':
      return <Webhooks />;
    case 'products':
      return <Products />;
    case 'offerings':
      return <Offerings />;
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>
            There is no page “{page}”. Go to the <a href={href('overview')}>overview</a>.
          </p>
        </section>
      );
  }
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
