//! Streamable HTTP sessions belong to the caller who opened them. rmcp's session store knows a
//! session by its id only, and a principal chosen by token claims serves many callers (one per
//! tenant): the id alone would let one tenant's token drive another's session. So every session
//! is recorded with its [`Owner`] (the route and the caller's identity, [`Caller::identity`])
//! when it is created, and [`super::http`] serves a request naming a session only for its
//! owner; any other is answered exactly as an unknown session is (404).
//!
//! The requests the server sends on a session (an approval's `elicitation/create`) are tracked
//! too: a JSON-RPC response is taken only for a request of that session still waiting for it,
//! and only once.
//!
//! [`Caller::identity`]: crate::tools::caller::Caller::identity

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::{
    RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
};
use rmcp::transport::Transport;
use rmcp::RoleServer;

/// Requests a session may have waiting for an answer at once; past this, the oldest is
/// forgotten (an answer to it is refused).
const MAX_OUTSTANDING: usize = 1024;

/// Who opened a session: the route that served it and the caller's identity (`None`: the
/// route has no caller, as on a server without authentication).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// The route (principal) index.
    pub route: usize,
    /// [`crate::tools::caller::Caller::identity`].
    pub identity: Option<String>,
}

tokio::task_local! {
    /// The caller of the request being handed to rmcp: the owner of a session it creates.
    static OPENER: Owner;
}

/// Runs `f` (rmcp's handling of one request) as `owner`'s: a session it creates is `owner`'s.
pub async fn opened_by<F: std::future::Future>(owner: Owner, f: F) -> F::Output {
    OPENER.scope(owner, f).await
}

/// What a request naming a session finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The caller's own session.
    Owned,
    /// Another caller's session (answered as unknown).
    Foreign,
    /// No such session (never opened, closed or expired).
    Unknown,
}

/// The server's requests on one session still waiting for their answer, oldest first.
#[derive(Debug, Default)]
struct Outstanding {
    ids: HashSet<RequestId>,
    order: VecDeque<RequestId>,
}

impl Outstanding {
    fn sent(&mut self, id: RequestId) {
        if self.ids.insert(id.clone()) {
            self.order.push_back(id);
        }
        while self.order.len() > MAX_OUTSTANDING {
            if let Some(old) = self.order.pop_front() {
                self.ids.remove(&old);
            }
        }
    }

    /// Takes `id` (an answer arrived): true when it was waiting.
    fn answered(&mut self, id: &RequestId) -> bool {
        if !self.ids.remove(id) {
            return false;
        }
        self.order.retain(|o| o != id);
        true
    }
}

type Shared = Arc<Mutex<Outstanding>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Every open session's owner and outstanding requests.
#[derive(Debug, Default)]
pub struct Owners {
    sessions: Mutex<HashMap<SessionId, (Owner, Shared)>>,
}

impl Owners {
    /// Whether `id` is `owner`'s session.
    pub fn lookup(&self, id: &str, owner: &Owner) -> Lookup {
        match lock(&self.sessions).get(id) {
            Some((o, _)) if o == owner => Lookup::Owned,
            Some(_) => Lookup::Foreign,
            None => Lookup::Unknown,
        }
    }

    /// Whether a JSON-RPC response with `id` on session `session` answers a request the
    /// server sent there and still waits for (without taking it: the session does, when the
    /// answer reaches it).
    pub fn awaits(&self, session: &str, id: &RequestId) -> bool {
        let sessions = lock(&self.sessions);
        sessions
            .get(session)
            .is_some_and(|(_, out)| lock(out).ids.contains(id))
    }

    /// Open sessions.
    pub fn len(&self) -> usize {
        lock(&self.sessions).len()
    }

    /// True when no session is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A session manager whose sessions each record their owner in [`Owners`]: `M`'s sessions,
/// created for the caller of [`opened_by`] and forgotten when they close (DELETE, idle
/// timeout, shutdown: rmcp closes every session whose service ends).
#[derive(Debug)]
pub struct OwnedSessions<M> {
    inner: M,
    owners: Arc<Owners>,
}

impl<M> OwnedSessions<M> {
    /// `inner`'s sessions, recorded in `owners`.
    pub fn new(inner: M, owners: Arc<Owners>) -> Self {
        OwnedSessions { inner, owners }
    }
}

/// rmcp's error for a session created outside [`opened_by`] (never, by construction): refused
/// rather than left without an owner.
#[derive(Debug, thiserror::Error)]
pub enum OwnedError<E: std::error::Error> {
    /// The inner manager's error.
    #[error(transparent)]
    Inner(E),
    /// A session was to be created without a caller to own it.
    #[error("a session was opened without an owner")]
    NoOwner,
}

impl<M: SessionManager> SessionManager for OwnedSessions<M> {
    type Error = OwnedError<M::Error>;
    type Transport = Tracked<M::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let owner = OPENER
            .try_with(Owner::clone)
            .map_err(|_| OwnedError::NoOwner)?;
        let (id, transport) = self
            .inner
            .create_session()
            .await
            .map_err(OwnedError::Inner)?;
        let outstanding = Shared::default();
        lock(&self.owners.sessions).insert(id.clone(), (owner, outstanding.clone()));
        Ok((
            id,
            Tracked {
                inner: transport,
                outstanding,
            },
        ))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let r = self.inner.initialize_session(id, message).await;
        r.map_err(OwnedError::Inner)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.inner.has_session(id).await.map_err(OwnedError::Inner)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self
            .inner
            .close_session(id)
            .await
            .map_err(OwnedError::Inner);
        lock(&self.owners.sessions).remove(id);
        closed
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let s = self.inner.create_stream(id, message).await;
        s.map_err(OwnedError::Inner)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        let r = self.inner.accept_message(id, message).await;
        r.map_err(OwnedError::Inner)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let s = self.inner.create_standalone_stream(id).await;
        s.map_err(OwnedError::Inner)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let s = self.inner.resume(id, last_event_id).await;
        s.map_err(OwnedError::Inner)
    }

    /// Never: a session restored from elsewhere would have no owner.
    async fn restore_session(
        &self,
        _id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        Ok(RestoreOutcome::NotSupported)
    }
}

/// A session's transport that records each request the server sends, and lets through to the
/// server only the answers to those (each once): a response or error naming another id, or
/// none, is dropped.
pub struct Tracked<T> {
    inner: T,
    outstanding: Shared,
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Tracked<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ServerJsonRpcMessage::Request(r) = &item {
            lock(&self.outstanding).sent(r.id.clone());
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let message = self.inner.receive().await?;
            let answers = match &message {
                ClientJsonRpcMessage::Response(r) => Some(Some(&r.id)),
                ClientJsonRpcMessage::Error(e) => Some(e.id.as_ref()),
                _ => None,
            };
            match answers {
                None => return Some(message),
                Some(Some(id)) if lock(&self.outstanding).answered(id) => return Some(message),
                Some(_) => continue,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_taken_once_and_only_for_a_request_sent() {
        let mut out = Outstanding::default();
        let (zero, one) = (RequestId::Number(0), RequestId::Number(1));
        assert!(!out.answered(&zero), "nothing was sent");
        out.sent(zero.clone());
        assert!(!out.answered(&RequestId::String("0".into())), "another id");
        assert!(!out.answered(&one));
        assert!(out.answered(&zero));
        assert!(!out.answered(&zero), "answered already");
        for i in 0..(MAX_OUTSTANDING as i64 + 1) {
            out.sent(RequestId::Number(i));
        }
        assert!(!out.answered(&zero), "the oldest was forgotten");
        assert!(out.answered(&RequestId::Number(MAX_OUTSTANDING as i64)));
        assert_eq!(out.ids.len(), out.order.len());
    }

    #[test]
    fn a_session_is_its_owners_only() {
        let owners = Owners::default();
        let alice = Owner {
            route: 0,
            identity: Some("alice".into()),
        };
        let bob = Owner {
            identity: Some("bob".into()),
            ..alice.clone()
        };
        let other_route = Owner {
            route: 1,
            ..alice.clone()
        };
        let id: SessionId = "s1".into();
        lock(&owners.sessions).insert(id.clone(), (alice.clone(), Shared::default()));
        assert_eq!(owners.lookup("s1", &alice), Lookup::Owned);
        assert_eq!(owners.lookup("s1", &bob), Lookup::Foreign);
        assert_eq!(owners.lookup("s1", &other_route), Lookup::Foreign);
        assert_eq!(owners.lookup("s2", &alice), Lookup::Unknown);
        assert!(!owners.awaits("s1", &RequestId::Number(0)));
    }
}
