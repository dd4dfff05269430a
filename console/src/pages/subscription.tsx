import { get, type SubscriptionDetail } from '../api';
import { money, when } from '../format';
import { href } from '../router';
import { Show, useLoad } from '../ui';

export function Subscription({ id }: { id: string }) {
  const loaded = useLoad(() => get<{ data: SubscriptionDetail }>(`/v1/subscriptions/${encodeURIComponent(id)}`), [id]);
  return (
    <section>
      <p>
        <a href={href('subscriptions')}>← Subscriptions</a>
      </p>
      <h1>Subscription {id}</h1>
      <Show loaded={loaded} what="the subscription">
        {({ data }) => (
          <dl class="detail" data-testid="subscription-detail">
            <dt>Status</dt>
            <dd>
              <span class={`status status-${data.status}`}>{data.status}</span>
            </dd>
            <dt>User</dt>
            <dd>
              <a href={href('customers', data.user_id)}>{data.user_id}</a>
            </dd>
            <dt>Product</dt>
            <dd>
              {data.product_id}
              {data.product_info?.name ? ` (${data.product_info.name})` : ''}
            </dd>
            <dt>Platform</dt>
            <dd>{data.platform}</dd>
            <dt>Price</dt>
            <dd>{money(data.price, data.currency)}</dd>
            <dt>Started</dt>
            <dd>{when(data.started_at)}</dd>
            <dt>Expires</dt>
            <dd>{when(data.expires_at)}</dd>
            <dt>Auto-renew</dt>
            <dd>{data.auto_renew ? 'on' : 'off'}</dd>
            <dt>Trial</dt>
            <dd>{data.trial_period ? `yes, until ${when(data.trial_expires_at)}` : 'no'}</dd>
            <dt>Updated</dt>
            <dd>{when(data.updated_at)}</dd>
          </dl>
        )}
      </Show>
    </section>
  );
}
